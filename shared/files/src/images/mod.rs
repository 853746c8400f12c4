//! Uploaded images: their real type and size read from the bytes ([`inspect`], at confirm), and
//! the resized copies a page offers in `srcset` ([`variants`], in the worker).
//!
//! Only the header is read at confirm; the pixels are decoded once, in the worker, under
//! [`image::Limits`] as well as the size checks, so an image whose header lies (a decompression
//! bomb) is refused too, and no image can take more memory than [`DECODE_BUDGET`].

mod variants;

use std::io::Cursor;

use image::{ImageDecoder, ImageError, ImageFormat, ImageReader, Limits};
use thiserror::Error;

pub use variants::{variants, Variant, VARIANT_WIDTHS};

/// Widest or tallest image accepted, in pixels. Phone photos are 4,000-8,200 px on their long
/// side; a longer one is a panorama (12,000×3,300 is within [`MAX_PIXELS`]), a scan or a bomb.
pub const MAX_SIDE: u32 = 12_000;

/// Most pixels accepted in one image: 40 megapixels, above the 12-24 of a phone's default
/// photos (a 48- or 50-megapixel JPEG is mostly over the 10 MB upload limit anyway).
pub const MAX_PIXELS: u64 = 40_000_000;

/// Most bytes the decoded pixels may take: [`MAX_PIXELS`] at 4 bytes a pixel (8-bit RGBA),
/// 160 MB. The worker Lambda has 512 MB (template.yaml, `WorkerFunction`) and holds the search
/// index (127 MiB at 10,000 articles) and its runtime (about 50 MiB): the decoded image, the
/// resizer's working copy (at most 1,280 px wide) and the variants fit beside them: about
/// 370 MiB in all at the limits (docs/performance.md, "Images"). A 16-bit image is refused past
/// 20 megapixels (8 bytes a pixel).
pub const DECODE_BUDGET: u64 = MAX_PIXELS * 4;

/// An image type uploads may declare, named by its MIME type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// `image/jpeg`.
    Jpeg,
    /// `image/png`.
    Png,
    /// `image/gif`.
    Gif,
    /// `image/webp`.
    Webp,
}

impl ImageKind {
    const ALL: [ImageKind; 4] = [ImageKind::Jpeg, ImageKind::Png, ImageKind::Gif, ImageKind::Webp];

    /// The image type of a declared MIME type (lower case), or `None` for a type that is not an
    /// image (a PDF, a .docx), whose bytes are not inspected.
    pub fn from_mime(mime: &str) -> Option<ImageKind> {
        Self::ALL.into_iter().find(|kind| kind.mime() == mime)
    }

    /// Its MIME type.
    pub fn mime(self) -> &'static str {
        match self {
            ImageKind::Jpeg => "image/jpeg",
            ImageKind::Png => "image/png",
            ImageKind::Gif => "image/gif",
            ImageKind::Webp => "image/webp",
        }
    }

    /// Its name in a message.
    pub fn name(self) -> &'static str {
        match self {
            ImageKind::Jpeg => "JPEG",
            ImageKind::Png => "PNG",
            ImageKind::Gif => "GIF",
            ImageKind::Webp => "WebP",
        }
    }

    /// Its name with its article, as the bytes' type in a message.
    fn with_article(self) -> &'static str {
        match self {
            ImageKind::Jpeg => "a JPEG image",
            ImageKind::Png => "a PNG image",
            ImageKind::Gif => "a GIF image",
            ImageKind::Webp => "a WebP image",
        }
    }

    fn format(self) -> ImageFormat {
        match self {
            ImageKind::Jpeg => ImageFormat::Jpeg,
            ImageKind::Png => ImageFormat::Png,
            ImageKind::Gif => ImageFormat::Gif,
            ImageKind::Webp => ImageFormat::WebP,
        }
    }

    /// The type the first bytes are (magic numbers, not the name).
    fn sniff(bytes: &[u8]) -> Option<ImageKind> {
        let webp = bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP";
        match bytes {
            [0xFF, 0xD8, 0xFF, ..] => Some(ImageKind::Jpeg),
            [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, ..] => Some(ImageKind::Png),
            _ if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") => {
                Some(ImageKind::Gif)
            }
            _ if webp => Some(ImageKind::Webp),
            _ => None,
        }
    }
}

/// What the bytes of an accepted image are: only [`inspect`] makes it, so its size is within
/// the limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageFacts {
    kind: ImageKind,
    width: u32,
    height: u32,
}

impl ImageFacts {
    /// The type the bytes are (the declared one).
    pub fn kind(&self) -> ImageKind {
        self.kind
    }

    /// Width as shown (`imageWidth`): a photo's EXIF orientation is applied.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height as shown (`imageHeight`).
    pub fn height(&self) -> u32 {
        self.height
    }
}

/// Why an image is refused, in words a client can act on (its `Display`).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ImageRefusal {
    /// The bytes are another type than the declared one.
    #[error("the bytes are {found}, not the declared {declared}", declared = .declared.mime())]
    Mismatch {
        /// What the bytes are, with its article (`a PNG image`, `a PDF document`).
        found: &'static str,
        /// The declared type.
        declared: ImageKind,
    },
    /// The bytes are no image of a known type.
    #[error(
        "the bytes are not a JPEG, PNG, GIF or WebP image (the declared type is {})",
        .declared.mime()
    )]
    NotAnImage {
        /// The declared type.
        declared: ImageKind,
    },
    /// The header cannot be read: truncated or corrupt bytes.
    #[error("the {} image's header cannot be read (truncated or corrupt): {detail}", .kind.name())]
    Unreadable {
        /// The type the bytes start as.
        kind: ImageKind,
        /// The decoder's words.
        detail: String,
    },
    /// Over [`MAX_SIDE`] or [`MAX_PIXELS`].
    #[error(
        "the image is {width}×{height} pixels; at most {MAX_SIDE} pixels a side and {} megapixels \
         are accepted",
        MAX_PIXELS / 1_000_000
    )]
    TooLarge {
        /// Width in the header.
        width: u32,
        /// Height in the header.
        height: u32,
    },
    /// Its pixels would take more than [`DECODE_BUDGET`] (a 16-bit image past 20 megapixels).
    #[error(
        "the image is {width}×{height} pixels at {bytes_per_pixel} bytes a pixel, {} MB once \
         decoded; at most {} MB are accepted (save it with 8 bits a channel, or smaller)",
        .needed / 1_000_000,
        DECODE_BUDGET / 1_000_000
    )]
    TooHeavy {
        /// Width in the header.
        width: u32,
        /// Height in the header.
        height: u32,
        /// Bytes a decoded pixel takes.
        bytes_per_pixel: u8,
        /// Bytes the decoded pixels would take.
        needed: u64,
    },
    /// The header was read but the pixels cannot be decoded: corrupt or truncated data, or a
    /// decoder that would need more memory than its limits allow.
    #[error("the {} image's pixels cannot be decoded: {detail}", .kind.name())]
    Undecodable {
        /// The image's type.
        kind: ImageKind,
        /// The decoder's words.
        detail: String,
    },
}

/// Reads an image's real type and size from its header, without decoding its pixels: refuses
/// bytes of another type than `declared`, unreadable headers, and images over the limits.
pub fn inspect(bytes: &[u8], declared: ImageKind) -> Result<ImageFacts, ImageRefusal> {
    let Some(kind) = ImageKind::sniff(bytes) else {
        return Err(match other_type(bytes) {
            Some(found) => ImageRefusal::Mismatch { found, declared },
            None => ImageRefusal::NotAnImage { declared },
        });
    };
    if kind != declared {
        return Err(ImageRefusal::Mismatch { found: kind.with_article(), declared });
    }
    let mut decoder = open(bytes, kind)?;
    let (width, height) = decoder.dimensions();
    let turned = decoder.orientation().is_ok_and(swaps_sides);
    let (width, height) = if turned { (height, width) } else { (width, height) };
    Ok(ImageFacts { kind, width, height })
}

/// What bytes of another type are, by their magic numbers, for the types a client may plausibly
/// have mixed up: the other accepted types (a PDF, a .docx) and the images phones and editors
/// save that are not accepted.
fn other_type(bytes: &[u8]) -> Option<&'static str> {
    let brand = bytes.get(4..12).filter(|ftyp| ftyp.starts_with(b"ftyp")).map(|ftyp| &ftyp[4..]);
    Some(match bytes {
        _ if bytes.starts_with(b"%PDF-") => "a PDF document",
        _ if bytes.starts_with(b"PK\x03\x04") => "a ZIP archive (such as a .docx document)",
        _ if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") => "a TIFF image",
        _ if matches!(brand, Some(b"heic" | b"heix" | b"hevc" | b"mif1" | b"msf1")) => {
            "a HEIC image"
        }
        _ if matches!(brand, Some(b"avif" | b"avis")) => "an AVIF image",
        _ => return None,
    })
}

/// Whether an EXIF orientation shows the stored rows as columns.
fn swaps_sides(orientation: image::metadata::Orientation) -> bool {
    use image::metadata::Orientation::*;
    matches!(orientation, Rotate90 | Rotate270 | Rotate90FlipH | Rotate270FlipH)
}

/// A decoder of `bytes` read as `kind`, its header checked against the limits and the limits
/// set on it for the decode (a header that lies still cannot take more than the budget).
fn open(bytes: &[u8], kind: ImageKind) -> Result<impl ImageDecoder + '_, ImageRefusal> {
    let unreadable =
        |error: ImageError| ImageRefusal::Unreadable { kind, detail: error.to_string() };
    let mut reader = ImageReader::with_format(Cursor::new(bytes), kind.format());
    let mut header_only = Limits::default();
    header_only.max_alloc = Some(DECODE_BUDGET);
    reader.limits(header_only);
    let mut decoder = reader.into_decoder().map_err(unreadable)?;
    let (width, height) = decoder.dimensions();
    if width.max(height) > MAX_SIDE || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ImageRefusal::TooLarge { width, height });
    }
    let needed = decoder.total_bytes();
    if needed > DECODE_BUDGET {
        let bytes_per_pixel = decoder.color_type().bytes_per_pixel();
        return Err(ImageRefusal::TooHeavy { width, height, bytes_per_pixel, needed });
    }
    decoder.set_limits(limits()).map_err(unreadable)?;
    Ok(decoder)
}

/// The decoders' limits: the size limits and the memory budget.
fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(DECODE_BUDGET);
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_accepted_type_is_named_by_its_mime_type_and_no_other_is() {
        for kind in ImageKind::ALL {
            assert_eq!(ImageKind::from_mime(kind.mime()), Some(kind));
        }
        for other in ["application/pdf", "image/jpg", "IMAGE/PNG", "image/svg+xml", ""] {
            assert_eq!(ImageKind::from_mime(other), None, "{other}");
        }
    }

    #[test]
    fn the_refusals_say_what_was_found_and_what_is_accepted() {
        let found = ImageKind::Png.with_article();
        let mismatch = ImageRefusal::Mismatch { found, declared: ImageKind::Jpeg };
        assert_eq!(mismatch.to_string(), "the bytes are a PNG image, not the declared image/jpeg");
        let large = ImageRefusal::TooLarge { width: 30_000, height: 20_000 };
        assert_eq!(
            large.to_string(),
            "the image is 30000×20000 pixels; at most 12000 pixels a side and 40 megapixels are \
             accepted"
        );
        let heavy = ImageRefusal::TooHeavy {
            width: 6000,
            height: 6000,
            bytes_per_pixel: 8,
            needed: 288_000_000,
        };
        assert!(heavy.to_string().contains("288 MB once decoded; at most 160 MB"), "{heavy}");
    }
}
