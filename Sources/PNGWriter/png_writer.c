#include "png_writer.h"

#include <png.h>
#include <setjmp.h>
#include <zlib.h>

struct failure {
    jmp_buf jump;
    char *error;
    size_t size;
};

static void on_error(png_structp png, png_const_charp message) {
    struct failure *f = png_get_error_ptr(png);
    snprintf(f->error, f->size, "%s", message);
    longjmp(f->jump, 1);
}

/* The simplified writer kept warnings to itself too; nothing here is worth a line on stderr. */
static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

int waih_png_write_rgb8(FILE *file, const uint8_t *pixels, uint32_t width, uint32_t height,
                        size_t stride, char *error, size_t error_size) {
    struct failure f = { .error = error, .size = error_size };
    if (error_size > 0) error[0] = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &f, on_error, on_warning);
    if (!png) {
        snprintf(error, error_size, "out of memory");
        return 0;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(error, error_size, "out of memory");
        return 0;
    }
    /* png and info are not changed after this point, so they hold their values after a jump. */
    if (setjmp(f.jump)) {
        png_destroy_write_struct(&png, &info);
        return 0;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    /* As the simplified writer marks its files: the samples are sRGB, perceptual intent. */
    png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    /* Paeth on every row and zlib's run-length matching (why: png_writer.h). */
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_PAETH);
    png_set_compression_strategy(png, Z_RLE);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, pixels + (size_t)y * stride);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return 1;
}
