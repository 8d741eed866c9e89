// libpng and libjpeg-turbo for Swift. libpng's classic API reports errors by longjmp, which must
// never cross a Swift frame, so the row-by-row reader lives here in C: every longjmp lands in
// sf_png_decode_rows, and Swift's row callback is only ever called between libpng's calls.
// TurboJPEG catches libjpeg's errors itself and is called from Swift directly.
#ifndef STOREFRONT_IMAGE_CODECS_H
#define STOREFRONT_IMAGE_CODECS_H
#include <stddef.h>
#include <png.h>
#include <turbojpeg.h>

// libpng's simplified API's format constants are macros; these are them as constants.
static const unsigned int sf_png_image_version = PNG_IMAGE_VERSION;
static const unsigned int sf_png_format_rgba = PNG_FORMAT_RGBA;
static const unsigned int sf_png_format_rgb = PNG_FORMAT_RGB;
static const unsigned int sf_png_format_gray = PNG_FORMAT_GRAY;
static const unsigned int sf_png_format_ga = PNG_FORMAT_GA;
static const unsigned int sf_png_format_flag_linear = PNG_FORMAT_FLAG_LINEAR;
static const unsigned int sf_png_format_flag_colormap = PNG_FORMAT_FLAG_COLORMAP;
static const unsigned int sf_png_format_flag_alpha = PNG_FORMAT_FLAG_ALPHA;
static const unsigned int sf_png_format_flag_color = PNG_FORMAT_FLAG_COLOR;

/// Told the image's size once the header is read: nonzero goes on to the pixels, zero stops.
typedef int (*sf_png_size_callback)(void *context, unsigned int width, unsigned int height);
/// Given each row in order, as 8-bit RGBA (not premultiplied, sRGB), `width * 4` bytes.
typedef void (*sf_png_row_callback)(void *context, const unsigned char *rgba, unsigned int y);

/// Decodes a PNG held in memory row by row, keeping one row (or, for an interlaced file, the
/// whole image, which Adam7 needs). Returns 0 when every row was given, 1 when the size callback
/// stopped it, and -1 on an error, with libpng's message in `message`.
int sf_png_decode_rows(const unsigned char *data, size_t size, void *context, sf_png_size_callback on_size,
                       sf_png_row_callback on_row, char *message, size_t capacity);

#endif
