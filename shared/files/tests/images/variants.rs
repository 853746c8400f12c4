//! `variants`: the widths, the aspect ratio, the orientation, the encodings, no metadata.

use blog_files::images::{inspect, variants, ImageKind, ImageRefusal, Variant};
use image::codecs::gif::GifEncoder;
use image::{DynamicImage, Frame, ImageFormat, Rgba, RgbaImage};

use crate::support::*;

fn variants_of(bytes: &[u8], kind: ImageKind) -> Vec<Variant> {
    variants(bytes, &inspect(bytes, kind).unwrap()).unwrap()
}

fn sizes(made: &[Variant]) -> Vec<(u32, u32)> {
    made.iter().map(|variant| (variant.width, variant.height)).collect()
}

/// Each variant's pixels have the size it claims, and its aspect ratio is the original's to a
/// pixel.
fn assert_true_to(made: &[Variant], (width, height): (u32, u32)) {
    for variant in made {
        let pixels = decoded(&variant.bytes);
        assert_eq!(pixels.dimensions(), (variant.width, variant.height));
        assert!(variant.width <= width, "{} upscaled past {width}", variant.width);
        let exact = f64::from(variant.width) * f64::from(height) / f64::from(width);
        assert!((f64::from(variant.height) - exact).abs() <= 1.0, "{} for {exact}", variant.height);
    }
}

#[test]
fn a_real_photograph_gets_a_jpeg_at_each_width_keeping_its_aspect_ratio() {
    let made = variants_of(&photo(), ImageKind::Jpeg);
    assert_eq!(sizes(&made), [(1280, 720), (640, 360), (320, 180)]);
    assert!(made.iter().all(|variant| variant.content_type == "image/jpeg"));
    assert_true_to(&made, (2400, 1350));
    // Widest first, each smaller than the one before, and all far smaller than the original.
    assert!(made.windows(2).all(|pair| pair[0].bytes.len() > pair[1].bytes.len()));
    assert!(made[0].bytes.len() < photo().len() / 2, "{}", made[0].bytes.len());
}

#[test]
fn no_variant_is_wider_than_the_original() {
    let portrait = jpeg(1000, 3000);
    let made = variants_of(&portrait, ImageKind::Jpeg);
    assert_eq!(sizes(&made), [(640, 1920), (320, 960)]);
    assert_true_to(&made, (1000, 3000));
    // A width equal to a variant's is copied at that width; an odd ratio rounds to the pixel.
    let exact = encoded(&DynamicImage::ImageRgba8(picture(640, 401)), ImageFormat::Png);
    let made = variants_of(&exact, ImageKind::Png);
    assert_eq!(sizes(&made), [(640, 401), (320, 201)]);
    assert_true_to(&made, (640, 401));
}

#[test]
fn an_image_narrower_than_the_smallest_width_gets_one_copy_at_its_own_size() {
    let icon = jpeg(200, 100);
    let made = variants_of(&with_exif(&icon, 1), ImageKind::Jpeg);
    assert_eq!(sizes(&made), [(200, 100)]);
    assert!(!jpeg_markers(&made[0].bytes).contains(&0xE1));
}

#[test]
fn a_phone_photo_s_exif_orientation_is_applied_so_it_is_not_shown_on_its_side() {
    // Stored 800×400 with the red quarter top left; orientation 6 turns it a quarter clockwise,
    // so it is shown 400×800 with the red quarter top right.
    let stored = jpeg(800, 400);
    let made = variants_of(&with_exif(&stored, 6), ImageKind::Jpeg);
    assert_eq!(sizes(&made), [(320, 640)]);
    let shown = decoded(&made[0].bytes);
    let red = |x: u32, y: u32| {
        let [r, g, b, _] = shown.get_pixel(x, y).0;
        r > 150 && g < 80 && b < 80
    };
    assert!(red(300, 20), "top right: {:?}", shown.get_pixel(300, 20));
    assert!(!red(20, 20) && !red(20, 620) && !red(300, 620));
}

#[test]
fn no_metadata_of_the_original_reaches_a_variant() {
    let original = with_exif(&photo(), 1);
    assert!(jpeg_markers(&original).contains(&0xE1), "the original carries EXIF with GPS");
    assert!(original.windows(6).any(|window| window == b"Exif\0\0"));
    for variant in variants_of(&original, ImageKind::Jpeg) {
        let markers = jpeg_markers(&variant.bytes);
        // SOI's segments: JFIF (APP0), tables, the frame; no APP1 (EXIF, XMP) or APP2 (ICC).
        assert!(markers.iter().all(|marker| !(0xE1..=0xEF).contains(marker)), "{markers:x?}");
        assert!(!variant.bytes.windows(4).any(|window| window == b"Exif"));
    }
}

#[test]
fn transparent_images_become_lossless_png_or_webp_and_opaque_ones_jpeg() {
    let transparent = encoded(&DynamicImage::ImageRgba8(cut_out(900, 600)), ImageFormat::Png);
    let made = variants_of(&transparent, ImageKind::Png);
    assert_eq!(sizes(&made), [(640, 427), (320, 213)]);
    for variant in &made {
        assert!(["image/png", "image/webp"].contains(&variant.content_type), "{variant:?}");
        let pixels = decoded(&variant.bytes);
        let middle = pixels.get_pixel(variant.width / 2, variant.height / 2);
        assert_eq!(middle.0[3], 0, "the disc stays transparent");
        assert_eq!(pixels.get_pixel(2, 2).0[3], 255);
    }
    // An alpha channel that is opaque everywhere is no reason for a lossless copy.
    let opaque = encoded(&DynamicImage::ImageRgba8(picture(900, 600)), ImageFormat::Png);
    let made = variants_of(&opaque, ImageKind::Png);
    assert!(made.iter().all(|variant| variant.content_type == "image/jpeg"));
    let webp = encoded(&DynamicImage::ImageRgba8(cut_out(700, 500)), ImageFormat::WebP);
    let made = variants_of(&webp, ImageKind::Webp);
    assert_eq!(sizes(&made), [(640, 457), (320, 229)]);
    assert!(made.iter().all(|variant| variant.content_type != "image/jpeg"));
}

#[test]
fn an_animated_gif_gives_stills_of_its_first_frame() {
    let frame = |colour: [u8; 4]| Frame::new(RgbaImage::from_pixel(400, 300, Rgba(colour)));
    let mut gif = Vec::new();
    GifEncoder::new(&mut gif)
        .encode_frames([frame([200, 30, 30, 255]), frame([30, 30, 200, 255])])
        .unwrap();
    let made = variants_of(&gif, ImageKind::Gif);
    assert_eq!(sizes(&made), [(320, 240)]);
    assert_eq!(made[0].content_type, "image/jpeg");
    let [r, _, b, _] = decoded(&made[0].bytes).get_pixel(160, 120).0;
    assert!(r > 150 && b < 80, "the first frame's red, not the second's blue");
}

#[test]
fn pixel_data_cut_short_after_a_sound_header_is_refused_as_undecodable() {
    let png = encoded(&DynamicImage::ImageRgba8(cut_out(400, 300)), ImageFormat::Png);
    let cut = &png[..png.len() / 2];
    let facts = inspect(cut, ImageKind::Png).unwrap();
    match variants(cut, &facts) {
        Err(refusal @ ImageRefusal::Undecodable { kind: ImageKind::Png, .. }) => {
            let message = refusal.to_string();
            assert!(message.starts_with("the PNG image's pixels cannot be decoded"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_variant_s_key_names_its_width_and_format_beside_the_original() {
    let made = variants_of(&jpeg(700, 350), ImageKind::Jpeg);
    let keys: Vec<String> =
        made.iter().map(|v| v.key_beside("uploads/2026/11/28/ab12.jpeg")).collect();
    assert_eq!(keys, ["uploads/2026/11/28/ab12-w640.jpg", "uploads/2026/11/28/ab12-w320.jpg"]);
}
