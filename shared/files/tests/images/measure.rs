//! The worker's cost per image, not run by default (`make bench-images` runs it):
//!
//! ```text
//! cargo test -p blog-files --release --test images -- --ignored --nocapture measure_the_variants_of_photographs
//! ```
//!
//! It measures `inspect` and `variants` on the real photograph, on two JPEGs made from it by
//! upscaling (12 megapixels, a phone photo's size, and 39.7, near the limit) and on a PNG of it
//! with a transparent disc cut out (the lossless path), each in a fresh
//! process (this test binary run again for `variants_in_a_fresh_process`), so the peak resident
//! memory it prints (VmHWM) is that image's alone beside the test harness's few MiB.

use std::process::Command;
use std::time::{Duration, Instant};

use blog_files::images::{inspect, variants, ImageKind};
use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat};

use crate::support::{cut_out_of, encoded, photo};

const INPUT_VARIABLE: &str = "BLOG_IMAGES_MEASURE_INPUT";
const TYPE_VARIABLE: &str = "BLOG_IMAGES_MEASURE_TYPE";

/// Runs of `variants` timed per image (the first one's peak memory is the one printed).
const RUNS: usize = 5;

fn timed<T>(run: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = run();
    (value, start.elapsed())
}

/// The photograph upscaled to `width`×`height`, as a JPEG of quality 90 (as phones save).
fn upscaled(photo: &[u8], width: u32, height: u32) -> Vec<u8> {
    let pixels = image::load_from_memory(photo).unwrap().to_rgb8();
    let large = image::imageops::resize(&pixels, width, height, FilterType::Triangle);
    let mut bytes = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 90)
        .encode_image(&DynamicImage::ImageRgb8(large))
        .unwrap();
    bytes
}

#[test]
#[ignore = "measures the worker's cost per image; run in release with --ignored --nocapture"]
fn measure_the_variants_of_photographs() {
    let photo = photo();
    let transparent =
        DynamicImage::ImageRgba8(cut_out_of(image::load_from_memory(&photo).unwrap()));
    let inputs = [
        ("the real photograph, 2400×1350 (3.2 MP)", photo.clone(), ImageKind::Jpeg),
        (
            "the photograph upscaled to 4608×2592 (11.9 MP, a phone photo)",
            upscaled(&photo, 4608, 2592),
            ImageKind::Jpeg,
        ),
        (
            "the photograph upscaled to 8400×4725 (39.7 MP, the limit)",
            upscaled(&photo, 8400, 4725),
            ImageKind::Jpeg,
        ),
        (
            "the photograph with a transparent disc cut out, a 2400×1350 RGBA PNG",
            encoded(&transparent, ImageFormat::Png),
            ImageKind::Png,
        ),
    ];
    for (number, (label, bytes, kind)) in inputs.into_iter().enumerate() {
        println!("{label}");
        let path = std::env::temp_dir().join(format!("blog-images-measure-{number}"));
        std::fs::write(&path, &bytes).unwrap();
        let output = Command::new(std::env::current_exe().unwrap())
            .args(["--ignored", "--exact", "measure::variants_in_a_fresh_process", "--nocapture"])
            .env(INPUT_VARIABLE, &path)
            .env(TYPE_VARIABLE, kind.mime())
            .output()
            .unwrap();
        let child = String::from_utf8_lossy(&output.stdout);
        child.lines().filter(|line| line.starts_with("  ")).for_each(|line| println!("{line}"));
        assert!(output.status.success(), "{child}{}", String::from_utf8_lossy(&output.stderr));
        std::fs::remove_file(&path).ok();
    }
}

/// The peak resident memory of this process so far, in MiB (`VmHWM`).
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|line| line.starts_with("VmHWM:")).unwrap();
    let kib: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib / 1024.0
}

#[test]
#[ignore = "run by measure_the_variants_of_photographs, in a fresh process per image"]
fn variants_in_a_fresh_process() {
    let Ok(path) = std::env::var(INPUT_VARIABLE) else { return };
    let kind = std::env::var(TYPE_VARIABLE).ok().and_then(|mime| ImageKind::from_mime(&mime));
    let kind = kind.unwrap_or(ImageKind::Jpeg);
    let before = peak_mib();
    let bytes = std::fs::read(path).unwrap();
    let (facts, inspecting) = timed(|| inspect(&bytes, kind).unwrap());
    let (made, first) = timed(|| variants(&bytes, &facts).unwrap());
    let peak = peak_mib();
    let mut times = vec![first];
    times.extend((1..RUNS).map(|_| timed(|| variants(&bytes, &facts).unwrap()).1));
    times.sort();
    let (_, decoding) = timed(|| image::load_from_memory(&bytes).unwrap());
    println!(
        "  {} bytes, {}×{}: inspect {inspecting:.2?}; variants median {:.1?} (min {:.1?}, max \
         {:.1?}, {RUNS} runs), of which the decode alone {decoding:.1?}",
        bytes.len(),
        facts.width(),
        facts.height(),
        times[RUNS / 2],
        times[0],
        times[RUNS - 1],
    );
    println!(
        "  peak resident memory {peak:.1} MiB (the test process before the file: {before:.1} MiB)"
    );
    for variant in &made {
        let (width, height, kind) = (variant.width, variant.height, variant.content_type);
        println!("  variant {width}×{height} {kind}: {} bytes", variant.bytes.len());
    }
    // The variants of a still image are the same in every run.
    assert_eq!(variants(&bytes, &facts).unwrap(), made);
}
