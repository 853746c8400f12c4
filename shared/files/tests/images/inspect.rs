//! `inspect`: the real type and size from the header, the refusals.

use std::time::{Duration, Instant};

use blog_files::images::{inspect, variants, ImageKind, ImageRefusal};
use image::{DynamicImage, ImageFormat};

use crate::support::*;

#[test]
fn each_accepted_type_s_size_is_read_from_its_header() {
    let picture = DynamicImage::ImageRgba8(picture(123, 45));
    for (format, kind) in [
        (ImageFormat::Jpeg, ImageKind::Jpeg),
        (ImageFormat::Png, ImageKind::Png),
        (ImageFormat::Gif, ImageKind::Gif),
        (ImageFormat::WebP, ImageKind::Webp),
    ] {
        let image =
            if format == ImageFormat::Jpeg { picture.to_rgb8().into() } else { picture.clone() };
        let facts = inspect(&encoded(&image, format), kind).unwrap();
        assert_eq!((facts.kind(), facts.width(), facts.height()), (kind, 123, 45), "{format:?}");
    }
    let photo = inspect(&photo(), ImageKind::Jpeg).unwrap();
    assert_eq!((photo.width(), photo.height()), (2400, 1350));
}

#[test]
fn a_photo_turned_by_its_exif_orientation_has_its_sides_as_shown() {
    let stored = jpeg(80, 40);
    let facts = inspect(&with_exif(&stored, 6), ImageKind::Jpeg).unwrap();
    assert_eq!((facts.width(), facts.height()), (40, 80));
    let upright = inspect(&with_exif(&stored, 1), ImageKind::Jpeg).unwrap();
    assert_eq!((upright.width(), upright.height()), (80, 40));
}

#[test]
fn bytes_of_another_type_than_the_declared_one_are_refused_saying_what_they_are() {
    let png = encoded(&DynamicImage::ImageRgba8(picture(10, 10)), ImageFormat::Png);
    let refusal = inspect(&png, ImageKind::Jpeg).unwrap_err();
    assert_eq!(refusal.to_string(), "the bytes are a PNG image, not the declared image/jpeg");
    for (bytes, found) in [
        (&b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"[..], "a PDF document"),
        (b"PK\x03\x04\x14\0\x06\0", "a ZIP archive (such as a .docx document)"),
        (b"\0\0\0\x18ftypheic\0\0\0\0mif1heic", "a HEIC image"),
        (b"II*\0\x08\0\0\0", "a TIFF image"),
    ] {
        let refusal = inspect(bytes, ImageKind::Png).unwrap_err();
        assert_eq!(refusal, ImageRefusal::Mismatch { found, declared: ImageKind::Png });
        assert_eq!(
            refusal.to_string(),
            format!("the bytes are {found}, not the declared image/png")
        );
    }
}

#[test]
fn garbage_and_empty_bytes_are_no_image() {
    for bytes in [&b""[..], b"hello, world", &[0u8; 64]] {
        let refusal = inspect(bytes, ImageKind::Webp).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "the bytes are not a JPEG, PNG, GIF or WebP image (the declared type is image/webp)"
        );
    }
}

#[test]
fn a_truncated_or_corrupt_header_is_refused_as_unreadable() {
    let photo = photo();
    let png = encoded(&DynamicImage::ImageRgba8(picture(10, 10)), ImageFormat::Png);
    let mut corrupt = png.clone();
    corrupt[16..24].fill(0xAB); // the IHDR's width and height, under its checksum
    for (bytes, kind) in [
        (&photo[..40], ImageKind::Jpeg),
        (&png[..20], ImageKind::Png),
        (&corrupt[..], ImageKind::Png),
        (&b"GIF89a\x01"[..], ImageKind::Gif),
        (&b"RIFF\x10\0\0\0WEBPVP8 "[..], ImageKind::Webp),
    ] {
        match inspect(bytes, kind) {
            Err(ImageRefusal::Unreadable { kind: read, .. }) => assert_eq!(read, kind),
            other => panic!("{kind:?}: {other:?}"),
        }
    }
    let refusal = inspect(&png[..20], ImageKind::Png).unwrap_err().to_string();
    assert!(refusal.starts_with("the PNG image's header cannot be read"), "{refusal}");
}

#[test]
fn a_header_over_the_size_limits_is_refused_before_any_pixel_is_decoded() {
    let refusal = inspect(&png_header(100_000, 100_000, 8, 6), ImageKind::Png).unwrap_err();
    assert_eq!(refusal, ImageRefusal::TooLarge { width: 100_000, height: 100_000 });
    assert_eq!(
        refusal.to_string(),
        "the image is 100000×100000 pixels; at most 12000 pixels a side and 40 megapixels are \
         accepted"
    );
    let refusal = inspect(&gif_header(65_535, 65_535), ImageKind::Gif).unwrap_err();
    assert_eq!(refusal, ImageRefusal::TooLarge { width: 65_535, height: 65_535 });
    // Within a side but over the pixels: 12,000 × 3,400 is 40.8 megapixels.
    let refusal = inspect(&png_header(12_000, 3_400, 8, 2), ImageKind::Png).unwrap_err();
    assert_eq!(refusal, ImageRefusal::TooLarge { width: 12_000, height: 3_400 });
    assert!(inspect(&png_header(12_000, 3_333, 8, 2), ImageKind::Png).is_ok());
    assert!(inspect(&gif_header(1, 1), ImageKind::Gif).is_ok());
}

#[test]
fn a_16_bit_image_past_the_memory_budget_is_refused_with_its_decoded_size() {
    // 6,000 × 6,000 is 36 megapixels, under the limit, but 288 MB at 16-bit RGBA.
    let refusal = inspect(&png_header(6_000, 6_000, 16, 6), ImageKind::Png).unwrap_err();
    assert_eq!(
        refusal,
        ImageRefusal::TooHeavy {
            width: 6_000,
            height: 6_000,
            bytes_per_pixel: 8,
            needed: 288_000_000
        }
    );
    assert!(inspect(&png_header(4_000, 4_000, 16, 6), ImageKind::Png).is_ok());
}

#[test]
fn a_decompression_bomb_is_refused_at_once_whether_inspected_or_sent_as_another_image() {
    let bomb = png_bomb(20_000);
    assert!(bomb.len() < 400_000, "{} bytes", bomb.len());
    let start = Instant::now();
    let refusal = inspect(&bomb, ImageKind::Png).unwrap_err();
    assert_eq!(refusal, ImageRefusal::TooLarge { width: 20_000, height: 20_000 });
    // Bytes swapped after inspection (facts of a small image) meet the same checks.
    let small = encoded(&DynamicImage::ImageRgba8(picture(10, 10)), ImageFormat::Png);
    let facts = inspect(&small, ImageKind::Png).unwrap();
    assert_eq!(variants(&bomb, &facts).unwrap_err(), refusal);
    assert!(start.elapsed() < Duration::from_secs(1), "{:?}", start.elapsed());
}

#[test]
fn the_crafted_bomb_is_a_valid_png_of_black_pixels() {
    let small = png_bomb(100);
    let image = image::load_from_memory_with_format(&small, ImageFormat::Png).unwrap().to_luma8();
    assert_eq!(image.dimensions(), (100, 100));
    assert!(image.pixels().all(|pixel| pixel.0 == [0]));
}
