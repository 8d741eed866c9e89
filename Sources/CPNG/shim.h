// libpng's simplified API for Swift (the classic API's longjmp is not safe to call from Swift).
// Its format constants are macros, re-exported here as constants.
#ifndef STOREFRONT_CPNG_SHIM_H
#define STOREFRONT_CPNG_SHIM_H
#include <libpng16/png.h>

static const unsigned int sf_png_image_version = PNG_IMAGE_VERSION;
static const unsigned int sf_png_format_rgba = PNG_FORMAT_RGBA;
static const unsigned int sf_png_format_rgb = PNG_FORMAT_RGB;
static const unsigned int sf_png_format_gray = PNG_FORMAT_GRAY;
static const unsigned int sf_png_format_ga = PNG_FORMAT_GA;
static const unsigned int sf_png_format_flag_linear = PNG_FORMAT_FLAG_LINEAR;
static const unsigned int sf_png_format_flag_colormap = PNG_FORMAT_FLAG_COLORMAP;
static const unsigned int sf_png_format_flag_alpha = PNG_FORMAT_FLAG_ALPHA;
static const unsigned int sf_png_format_flag_color = PNG_FORMAT_FLAG_COLOR;
#endif
