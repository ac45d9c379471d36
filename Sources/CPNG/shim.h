#include <png.h>

/* libpng's upper bound on the PNG file png_image_write_to_memory writes for this image
 * (PNG_IMAGE_PNG_SIZE_MAX, a macro Swift cannot call), so the image is compressed once. */
static inline png_alloc_size_t waih_png_size_max(const png_image *image) {
    return PNG_IMAGE_PNG_SIZE_MAX(*image);
}
