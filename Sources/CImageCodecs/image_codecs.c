#include "image_codecs.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sf_png_reader {
    jmp_buf jump;
    const unsigned char *data;
    size_t size;
    size_t offset;
    char *message;
    size_t capacity;
};

static void sf_png_error(png_structp png, png_const_charp text) {
    struct sf_png_reader *reader = png_get_error_ptr(png);
    snprintf(reader->message, reader->capacity, "%s", text);
    longjmp(reader->jump, 1);
}

static void sf_png_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static void sf_png_read(png_structp png, png_bytep out, size_t length) {
    struct sf_png_reader *reader = png_get_io_ptr(png);
    if (reader->size - reader->offset < length) png_error(png, "the file ends early (truncated)");
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
}

int sf_png_decode_rows(const unsigned char *data, size_t size, void *context, sf_png_size_callback on_size,
                       sf_png_row_callback on_row, char *message, size_t capacity) {
    if (capacity > 0) message[0] = 0;
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        snprintf(message, capacity, "Not a PNG file");
        return -1;
    }
    struct sf_png_reader reader = {.data = data, .size = size, .offset = 0, .message = message, .capacity = capacity};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, sf_png_error, sf_png_warning);
    if (png == NULL) {
        snprintf(message, capacity, "out of memory");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    // Volatile: they change after setjmp and are read after a longjmp.
    unsigned char *volatile row = NULL;
    unsigned char *volatile whole = NULL;
    png_bytep *volatile rows = NULL;
    if (info == NULL || setjmp(reader.jump)) {
        free(row);
        free(whole);
        free(rows);
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        if (message[0] == 0) snprintf(message, capacity, "out of memory");
        return -1;
    }
    png_set_read_fn(png, &reader, sf_png_read);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info);
    png_uint_32 height = png_get_image_height(png, info);
    if (!on_size(context, width, height)) {
        png_destroy_read_struct(&png, &info, NULL);
        return 1;
    }
    // Whatever the file holds, 8-bit RGBA in sRGB, as libpng's simplified API gives it.
    png_set_alpha_mode(png, PNG_ALPHA_PNG, PNG_DEFAULT_sRGB);
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    size_t stride = png_get_rowbytes(png, info);
    if (stride != (size_t)width * 4) png_error(png, "unexpected row layout");
    if (passes > 1) {
        whole = malloc(stride * height);
        rows = malloc(sizeof(png_bytep) * height);
        if (whole == NULL || rows == NULL) png_error(png, "out of memory");
        for (png_uint_32 y = 0; y < height; y++) rows[y] = whole + stride * y;
        png_read_image(png, rows);
        png_read_end(png, NULL);
        for (png_uint_32 y = 0; y < height; y++) on_row(context, rows[y], y);
    } else {
        row = malloc(stride);
        if (row == NULL) png_error(png, "out of memory");
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, row, NULL);
            on_row(context, row, y);
        }
        png_read_end(png, NULL);
    }
    free(row);
    free(whole);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}
