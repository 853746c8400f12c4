//! The resized copies of an image that a page lists in `srcset`: decoded under the limits,
//! resized with Lanczos3 (fast_image_resize: SIMD, about ten times `image`'s own resize),
//! turned as the photo's EXIF orientation says, and encoded afresh, so no metadata of the
//! original (EXIF with GPS, XMP, ICC profiles, comments) is carried over.

use std::borrow::Cow;

use fast_image_resize as fr;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::codecs::webp::WebPEncoder;
use image::metadata::Orientation;
use image::{DynamicImage, ExtendedColorType, ImageBuffer, ImageDecoder, ImageEncoder, ImageError};

use super::{limits, open, swaps_sides, ImageFacts, ImageRefusal};

/// Widths of the variants in pixels: a phone's column at 1× and 2× (320, 640) and a wide
/// column at 2× (1280). Only the widths up to the image's own are made: never upscaled.
pub const VARIANT_WIDTHS: [u32; 3] = [320, 640, 1280];

/// Quality of the JPEG variants: visually clean for photos at about a tenth of the pixels'
/// size (docs/performance.md, "Images").
const JPEG_QUALITY: u8 = 80;

/// One resized copy of an image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Width as shown, in pixels.
    pub width: u32,
    /// Height as shown, in pixels.
    pub height: u32,
    /// `image/jpeg` for an opaque image; `image/png` or `image/webp` (the smaller) for one with
    /// transparent pixels.
    pub content_type: &'static str,
    /// The encoded image, without metadata.
    pub bytes: Vec<u8>,
}

impl Variant {
    /// The extension of its key, after its content type.
    pub fn extension(&self) -> &'static str {
        match self.content_type {
            "image/png" => "png",
            "image/webp" => "webp",
            _ => "jpg",
        }
    }

    /// Its key beside the original's: `uploads/2026/03/04/<32 hex>.png` gives
    /// `uploads/2026/03/04/<32 hex>-w640.jpg` for the 640-px JPEG variant.
    pub fn key_beside(&self, file_key: &str) -> String {
        let name = file_key.rfind('/').map_or(0, |slash| slash + 1);
        let stem = match file_key[name..].rfind('.') {
            Some(dot) => &file_key[..name + dot],
            None => file_key,
        };
        format!("{stem}-w{}.{}", self.width, self.extension())
    }
}

/// Decodes an inspected image and makes its variants, widest first: one for each of
/// [`VARIANT_WIDTHS`] up to its own width, keeping its aspect ratio; an image narrower than the
/// smallest gets one copy at its own size, so every image has a copy without metadata. An
/// animated GIF, WebP or PNG gives stills of its first frame.
pub fn variants(bytes: &[u8], facts: &ImageFacts) -> Result<Vec<Variant>, ImageRefusal> {
    let kind = facts.kind();
    let undecodable =
        |error: ImageError| ImageRefusal::Undecodable { kind, detail: error.to_string() };
    let mut decoder = open(bytes, kind)?;
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    limits().reserve(decoder.total_bytes()).map_err(undecodable)?;
    let mut source = DynamicImage::from_decoder(decoder).map_err(undecodable)?;
    let opaque = !has_transparency(&source);
    let turned = swaps_sides(orientation);
    let (width, height) = (source.width(), source.height());
    let (shown_width, shown_height) = if turned { (height, width) } else { (width, height) };
    let mut made = Vec::new();
    for (width, height) in targets(shown_width, shown_height) {
        let stored = if turned { (height, width) } else { (width, height) };
        let resized = resize(&source, stored).map_err(|detail| ImageRefusal::Undecodable {
            kind,
            detail: format!("resizing failed: {detail}"),
        })?;
        let shown = match orientation {
            Orientation::NoTransforms => Cow::Borrowed(&resized),
            turn => {
                let mut shown = resized.clone();
                shown.apply_orientation(turn);
                Cow::Owned(shown)
            }
        };
        made.push(encode(&shown, opaque).map_err(undecodable)?);
        // The next, narrower variant is made from this one: the original's memory is freed
        // after the first, and each step reads a quarter of the pixels of the one before.
        source = resized;
    }
    Ok(made)
}

/// The shown sizes to make, widest first.
fn targets(width: u32, height: u32) -> Vec<(u32, u32)> {
    let scaled = |to: u32| {
        let exact = (u64::from(height) * u64::from(to) + u64::from(width) / 2) / u64::from(width);
        u32::try_from(exact.max(1)).unwrap_or(u32::MAX)
    };
    let mut targets: Vec<(u32, u32)> = VARIANT_WIDTHS
        .iter()
        .rev()
        .filter(|&&to| to <= width)
        .map(|&to| (to, scaled(to)))
        .collect();
    if targets.is_empty() {
        targets.push((width, height));
    }
    targets
}

/// Whether any pixel is not fully opaque (an alpha channel alone does not make an image
/// transparent: many PNGs carry one that is opaque everywhere).
fn has_transparency(image: &DynamicImage) -> bool {
    match image {
        DynamicImage::ImageLumaA8(pixels) => pixels.pixels().any(|p| p.0[1] < u8::MAX),
        DynamicImage::ImageRgba8(pixels) => pixels.pixels().any(|p| p.0[3] < u8::MAX),
        DynamicImage::ImageLumaA16(pixels) => pixels.pixels().any(|p| p.0[1] < u16::MAX),
        DynamicImage::ImageRgba16(pixels) => pixels.pixels().any(|p| p.0[3] < u16::MAX),
        DynamicImage::ImageRgba32F(pixels) => pixels.pixels().any(|p| p.0[3] < 1.0),
        _ => false,
    }
}

/// The image resized to `(width, height)` in its own pixel layout (alpha premultiplied while
/// resizing, so transparent pixels lend no colour to their neighbours).
fn resize(source: &DynamicImage, (width, height): (u32, u32)) -> Result<DynamicImage, String> {
    if (source.width(), source.height()) == (width, height) {
        return Ok(source.clone());
    }
    let Some(layout) = layout(source) else {
        return resize(&DynamicImage::ImageRgba8(source.to_rgba8()), (width, height));
    };
    let from =
        fr::images::ImageRef::new(source.width(), source.height(), source.as_bytes(), layout)
            .map_err(|error| error.to_string())?;
    let mut to = fr::images::Image::new(width, height, layout);
    let lanczos = fr::ResizeAlg::Convolution(fr::FilterType::Lanczos3);
    fr::Resizer::new()
        .resize(&from, &mut to, &fr::ResizeOptions::new().resize_alg(lanczos))
        .map_err(|error| error.to_string())?;
    rebuild(source, width, height, to.into_vec()).ok_or_else(|| "a buffer of the wrong size".into())
}

/// The resizer's layout of the image's pixels; `None` for layouts no accepted decoder gives
/// (32-bit floats), resized as 8-bit RGBA.
fn layout(image: &DynamicImage) -> Option<fr::PixelType> {
    use fr::PixelType::*;
    Some(match image {
        DynamicImage::ImageLuma8(_) => U8,
        DynamicImage::ImageLumaA8(_) => U8x2,
        DynamicImage::ImageRgb8(_) => U8x3,
        DynamicImage::ImageRgba8(_) => U8x4,
        DynamicImage::ImageLuma16(_) => U16,
        DynamicImage::ImageLumaA16(_) => U16x2,
        DynamicImage::ImageRgb16(_) => U16x3,
        DynamicImage::ImageRgba16(_) => U16x4,
        _ => return None,
    })
}

/// An image of `like`'s layout from the resizer's bytes.
fn rebuild(like: &DynamicImage, w: u32, h: u32, bytes: Vec<u8>) -> Option<DynamicImage> {
    use DynamicImage::*;
    let wide = |bytes: Vec<u8>| -> Vec<u16> {
        bytes.chunks_exact(2).map(|pair| u16::from_ne_bytes([pair[0], pair[1]])).collect()
    };
    Some(match like {
        ImageLuma8(_) => ImageLuma8(ImageBuffer::from_raw(w, h, bytes)?),
        ImageLumaA8(_) => ImageLumaA8(ImageBuffer::from_raw(w, h, bytes)?),
        ImageRgb8(_) => ImageRgb8(ImageBuffer::from_raw(w, h, bytes)?),
        ImageRgba8(_) => ImageRgba8(ImageBuffer::from_raw(w, h, bytes)?),
        ImageLuma16(_) => ImageLuma16(ImageBuffer::from_raw(w, h, wide(bytes))?),
        ImageLumaA16(_) => ImageLumaA16(ImageBuffer::from_raw(w, h, wide(bytes))?),
        ImageRgb16(_) => ImageRgb16(ImageBuffer::from_raw(w, h, wide(bytes))?),
        ImageRgba16(_) => ImageRgba16(ImageBuffer::from_raw(w, h, wide(bytes))?),
        _ => return None,
    })
}

/// The variant's bytes: JPEG for an opaque image; for a transparent one, lossless WebP or PNG,
/// whichever is smaller: WebP is about a fifth smaller for photographic content, PNG up to five
/// times smaller for flat graphics (docs/performance.md, "Images").
fn encode(image: &DynamicImage, opaque: bool) -> Result<Variant, ImageError> {
    let (width, height) = (image.width(), image.height());
    if opaque {
        let pixels = image.to_rgb8();
        let mut bytes = Vec::new();
        JpegEncoder::new_with_quality(&mut bytes, JPEG_QUALITY).write_image(
            &pixels,
            width,
            height,
            ExtendedColorType::Rgb8,
        )?;
        return Ok(Variant { width, height, content_type: "image/jpeg", bytes });
    }
    let pixels = image.to_rgba8();
    let mut png = Vec::new();
    PngEncoder::new_with_quality(&mut png, CompressionType::Default, FilterType::Adaptive)
        .write_image(&pixels, width, height, ExtendedColorType::Rgba8)?;
    let mut webp = Vec::new();
    WebPEncoder::new_lossless(&mut webp).write_image(
        &pixels,
        width,
        height,
        ExtendedColorType::Rgba8,
    )?;
    let (content_type, bytes) =
        if webp.len() < png.len() { ("image/webp", webp) } else { ("image/png", png) };
    Ok(Variant { width, height, content_type, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(width: u32, content_type: &'static str) -> Variant {
        Variant { width, height: 1, content_type, bytes: Vec::new() }
    }

    #[test]
    fn a_variant_key_sits_beside_the_original_with_its_width_and_extension() {
        let key = "uploads/2026/03/04/0123456789abcdef0123456789abcdef.png";
        assert_eq!(
            variant(640, "image/jpeg").key_beside(key),
            "uploads/2026/03/04/0123456789abcdef0123456789abcdef-w640.jpg"
        );
        assert_eq!(variant(320, "image/webp").key_beside("a.b/c"), "a.b/c-w320.webp");
        assert_eq!(variant(1280, "image/png").key_beside("c.d.gif"), "c.d-w1280.png");
    }

    #[test]
    fn the_targets_are_the_widths_up_to_the_image_s_own_or_the_image_s_own_size() {
        assert_eq!(targets(2400, 1350), [(1280, 720), (640, 360), (320, 180)]);
        assert_eq!(targets(640, 480), [(640, 480), (320, 240)]);
        assert_eq!(targets(639, 479), [(320, 240)]);
        assert_eq!(targets(200, 100), [(200, 100)]);
        assert_eq!(targets(12_000, 3), [(1280, 1), (640, 1), (320, 1)]);
    }

    #[test]
    fn a_transparent_image_is_kept_as_the_smaller_of_lossless_webp_and_png() {
        use image::{Rgba, RgbaImage};
        // Flat bands with the soft edges of resizing (a logo, a diagram): PNG wins.
        let bands = [[200, 30, 30, 255], [30, 200, 30, 255], [0, 0, 0, 0], [30, 30, 200, 128]];
        let flat =
            RgbaImage::from_fn(1200, 675, |x, y| Rgba(bands[((x / 75 + y / 75) % 4) as usize]));
        let flat = resize(&flat.into(), (320, 180)).unwrap();
        assert_eq!(encode(&flat, false).unwrap().content_type, "image/png");
        // Smooth gradients with a little grain (a photo's texture): WebP wins.
        let mut seed = 7u32;
        let grainy = RgbaImage::from_fn(320, 180, |x, y| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let grain = (seed >> 28) as u8;
            Rgba([
                (x / 2) as u8 + grain,
                (y / 2 + x / 4) as u8 + grain,
                90 + grain,
                255 - (x < 20) as u8 * 255,
            ])
        });
        let noisy = encode(&grainy.into(), false).unwrap();
        assert_eq!(noisy.content_type, "image/webp");
    }

    #[test]
    fn the_decode_limits_refuse_a_header_past_them_before_any_pixel_is_read() {
        let mut limits = limits();
        assert!(limits.check_dimensions(12_001, 1).is_err());
        assert!(limits.reserve(super::super::DECODE_BUDGET + 1).is_err());
    }
}
