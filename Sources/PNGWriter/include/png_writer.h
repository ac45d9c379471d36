/* Writing RGB8 pictures as PNG with libpng's full API (Sources/WaiCore/Image/PNGCodec.swift).
 *
 * libpng's simplified writer (png_image_write_*) offers no compression setting but "fast"
 * (no filters: files 1.5-1.7x larger), and its default (a filter chosen per row, zlib level
 * 6, Z_FILTERED) took 65-80 ms for a 768x512 photo, more than decoding it. The Paeth filter
 * on every row with zlib's run-length matching (Z_RLE) writes photos within 0.3 % of that
 * size in about 10 ms (docs/cli.md, "Conventions"). The full API reports errors by longjmp,
 * which must not cross Swift frames, so the whole write is this C function: libpng's error
 * handler jumps back into it and nowhere else. */
#ifndef WAIH_PNG_WRITER_H
#define WAIH_PNG_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes `height` rows of `width` RGB8 pixels, `stride` bytes apart, as a PNG file (IHDR,
 * sRGB, IDAT, IEND) to `file`. 1 on success; 0 with libpng's message in `error` (always
 * terminated). Failed writes to `file` are the caller's to find (ferror). */
int waih_png_write_rgb8(FILE *file, const uint8_t *pixels, uint32_t width, uint32_t height,
                        size_t stride, char *error, size_t error_size);

#endif
