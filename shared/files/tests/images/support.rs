//! Images for the tests: encoded by the `image` crate, crafted byte by byte where no encoder
//! would write them (headers over the limits, a decompression bomb, EXIF segments).

use std::io::Cursor;
use std::path::PathBuf;

use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};

/// The real photograph (tests/fixtures/README.md).
pub fn photo() -> Vec<u8> {
    std::fs::read(fixture("dandelions-2400x1350.jpg")).unwrap()
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// `image` encoded as `format`.
pub fn encoded(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Vec::new();
    image.write_to(&mut Cursor::new(&mut bytes), format).unwrap();
    bytes
}

/// A picture with something in every region: a gradient, and the top-left quarter red.
pub fn picture(width: u32, height: u32) -> RgbaImage {
    RgbaImage::from_fn(width, height, |x, y| {
        if x < width / 4 && y < height / 4 {
            Rgba([230, 20, 20, 255])
        } else {
            Rgba([20, (x * 200 / width) as u8, (y * 200 / height) as u8 + 40, 255])
        }
    })
}

/// The picture as a JPEG.
pub fn jpeg(width: u32, height: u32) -> Vec<u8> {
    let opaque = DynamicImage::ImageRgba8(picture(width, height)).to_rgb8();
    encoded(&DynamicImage::ImageRgb8(opaque), ImageFormat::Jpeg)
}

/// The same picture with a transparent disc cut out of its middle.
pub fn cut_out(width: u32, height: u32) -> RgbaImage {
    cut_out_of(DynamicImage::ImageRgba8(picture(width, height)))
}

/// An image with a transparent disc cut out of its middle.
pub fn cut_out_of(image: DynamicImage) -> RgbaImage {
    let mut image = image.into_rgba8();
    let (width, height) = image.dimensions();
    let (cx, cy, r) = (width as f32 / 2.0, height as f32 / 2.0, height as f32 / 4.0);
    for (x, y, pixel) in image.enumerate_pixels_mut() {
        if (x as f32 - cx).hypot(y as f32 - cy) < r {
            pixel.0[3] = 0;
        }
    }
    image
}

/// The decoded pixels of a variant.
pub fn decoded(bytes: &[u8]) -> RgbaImage {
    image::load_from_memory(bytes).unwrap().to_rgba8()
}

/// A PNG whose header says `width`×`height` at `depth` bits and `color` type, with one tiny
/// data chunk: readable as far as its header.
pub fn png_header(width: u32, height: u32, depth: u8, color: u8) -> Vec<u8> {
    let mut header = Vec::new();
    header.extend(width.to_be_bytes());
    header.extend(height.to_be_bytes());
    header.extend([depth, color, 0, 0, 0]);
    png_of(&header, &zlib_of_zeros(1))
}

/// A PNG `side`×`side` at one bit a pixel, every pixel black: the data compresses about 160 to
/// 1, so a 20,000-px side is a file of 315 KB that decodes to 400 megapixels.
pub fn png_bomb(side: u32) -> Vec<u8> {
    let mut header = Vec::new();
    header.extend(side.to_be_bytes());
    header.extend(side.to_be_bytes());
    header.extend([1, 0, 0, 0, 0]);
    let row = 1 + u64::from(side).div_ceil(8);
    png_of(&header, &zlib_of_zeros(row * u64::from(side)))
}

fn png_of(header: &[u8], data: &[u8]) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (name, body) in [(b"IHDR", header), (b"IDAT", data), (b"IEND", &[][..])] {
        png.extend((body.len() as u32).to_be_bytes());
        let start = png.len();
        png.extend(name);
        png.extend(body);
        let crc = crc32(&png[start..]);
        png.extend(crc.to_be_bytes());
    }
    png
}

/// `count` zero bytes as a zlib stream: a literal zero, then matches of 258 bytes at distance 1
/// in one block of the fixed Huffman codes (13 bits each), then literals for the rest.
fn zlib_of_zeros(count: u64) -> Vec<u8> {
    let mut bits = Bits::default();
    bits.put(1, 1); // the final block
    bits.put(1, 2); // fixed Huffman codes
    let literal_zero = |bits: &mut Bits| bits.code(0b0011_0000, 8);
    literal_zero(&mut bits);
    let rest = count.saturating_sub(1);
    for _ in 0..rest / 258 {
        bits.code(0b1100_0101, 8); // length 258
        bits.code(0, 5); // distance 1
    }
    for _ in 0..rest % 258 {
        literal_zero(&mut bits);
    }
    bits.code(0, 7); // end of block
    let mut zlib = vec![0x78, 0x01];
    zlib.extend(bits.bytes);
    // Adler-32 of zeros: the sum stays 1 and the sum of sums is the count.
    zlib.extend((((count % 65_521) as u32) << 16 | 1).to_be_bytes());
    zlib
}

#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    used: u32,
}

impl Bits {
    /// `count` bits of `value`, least significant first (deflate's header fields).
    fn put(&mut self, value: u32, count: u32) {
        for bit in 0..count {
            if self.used.is_multiple_of(8) {
                self.bytes.push(0);
            }
            let last = self.bytes.last_mut().unwrap();
            *last |= (((value >> bit) & 1) as u8) << (self.used % 8);
            self.used += 1;
        }
    }

    /// A Huffman code of `count` bits, most significant first.
    fn code(&mut self, code: u32, count: u32) {
        let reversed = (0..count).fold(0, |acc, bit| acc << 1 | (code >> bit) & 1);
        self.put(reversed, count);
    }
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = u32::MAX;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { crc >> 1 ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A GIF whose screen is `width`×`height`, holding one 1×1 frame.
pub fn gif_header(width: u16, height: u16) -> Vec<u8> {
    let mut gif = b"GIF89a".to_vec();
    gif.extend(width.to_le_bytes());
    gif.extend(height.to_le_bytes());
    gif.extend([0, 0, 0]); // no global colour table
    gif.extend([0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0x80]); // a 1×1 frame with a local table of 2
    gif.extend([0, 0, 0, 255, 255, 255]);
    gif.extend([2, 2, 0x44, 1, 0, 0x3B]); // its one pixel, the trailer
    gif
}

/// A JPEG with an EXIF segment added: its orientation, and a GPS position (48° 51' N).
pub fn with_exif(jpeg: &[u8], orientation: u16) -> Vec<u8> {
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    let entry = |tiff: &mut Vec<u8>, tag: u16, kind: u16, count: u32, value: [u8; 4]| {
        tiff.extend(tag.to_be_bytes());
        tiff.extend(kind.to_be_bytes());
        tiff.extend(count.to_be_bytes());
        tiff.extend(value);
    };
    // IFD0 at 8: 2 entries, then the GPS IFD at 8 + 2 + 24 + 4 = 38.
    tiff.extend(2u16.to_be_bytes());
    let [high, low] = orientation.to_be_bytes();
    entry(&mut tiff, 0x0112, 3, 1, [high, low, 0, 0]);
    entry(&mut tiff, 0x8825, 4, 1, 38u32.to_be_bytes());
    tiff.extend(0u32.to_be_bytes());
    // The GPS IFD: latitude reference and latitude (three rationals at 38 + 2 + 24 + 4 = 68).
    tiff.extend(2u16.to_be_bytes());
    entry(&mut tiff, 0x0001, 2, 2, *b"N\0\0\0");
    entry(&mut tiff, 0x0002, 5, 3, 68u32.to_be_bytes());
    tiff.extend(0u32.to_be_bytes());
    for (numerator, denominator) in [(48u32, 1u32), (51, 1), (0, 1)] {
        tiff.extend(numerator.to_be_bytes());
        tiff.extend(denominator.to_be_bytes());
    }
    let mut segment = vec![0xFF, 0xE1];
    segment.extend(((tiff.len() + 8) as u16).to_be_bytes());
    segment.extend(b"Exif\0\0");
    segment.extend(tiff);
    let mut out = jpeg[..2].to_vec();
    out.extend(segment);
    out.extend(&jpeg[2..]);
    out
}

/// The markers of a JPEG's segments before its image data.
pub fn jpeg_markers(jpeg: &[u8]) -> Vec<u8> {
    let mut markers = Vec::new();
    let mut at = 2;
    while at + 4 <= jpeg.len() && jpeg[at] == 0xFF {
        let marker = jpeg[at + 1];
        markers.push(marker);
        if marker == 0xDA {
            break;
        }
        at += 2 + usize::from(u16::from_be_bytes([jpeg[at + 2], jpeg[at + 3]]));
    }
    markers
}
