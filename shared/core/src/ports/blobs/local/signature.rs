//! Signed URLs of the local store: HMAC-SHA256 over method, key, content type, content length,
//! disposition and expiry, so that (as with S3's SigV4) a request whose headers differ from
//! what was signed, a tampered URL or an expired one is refused.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// What a signature covers besides the key and the expiry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bound<'a> {
    /// `PUT` or `GET`.
    pub method: &'a str,
    /// `Content-Type` of a PUT, or the type a GET is answered with.
    pub content_type: &'a str,
    /// `Content-Length` of a PUT (empty for a GET).
    pub content_length: &'a str,
    /// `Content-Disposition` a GET is answered with (empty for a PUT).
    pub disposition: &'a str,
}

/// Why a signed request is refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `expires` has passed.
    Expired,
    /// The signature does not match the request (tampered, or other headers).
    Mismatch,
}

/// Signs and verifies URLs with one secret key.
#[derive(Clone)]
pub struct Signer {
    key: Vec<u8>,
}

impl Signer {
    /// A signer with `key` (any length; 32 random bytes are plenty).
    pub fn new(key: &[u8]) -> Self {
        Self { key: key.to_vec() }
    }

    fn mac(&self, object_key: &str, bound: &Bound<'_>, expires: i64) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC takes keys of any size");
        let Bound { method, content_type, content_length, disposition } = bound;
        let text = format!(
            "{method}\n{object_key}\n{content_type}\n{content_length}\n{disposition}\n{expires}"
        );
        mac.update(text.as_bytes());
        mac
    }

    /// The hex signature of a request valid until `expires` (epoch seconds).
    pub fn sign(&self, object_key: &str, bound: &Bound<'_>, expires: i64) -> String {
        let digest = self.mac(object_key, bound, expires).finalize().into_bytes();
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Checks a request at time `now` (epoch seconds), in constant time.
    pub fn verify(
        &self,
        object_key: &str,
        bound: &Bound<'_>,
        expires: i64,
        signature: &str,
        now: i64,
    ) -> Result<(), Refusal> {
        let given = decode_hex(signature).ok_or(Refusal::Mismatch)?;
        self.mac(object_key, bound, expires).verify_slice(&given).map_err(|_| Refusal::Mismatch)?;
        if now >= expires {
            return Err(Refusal::Expired);
        }
        Ok(())
    }
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    let pairs = text.as_bytes().chunks(2);
    pairs.map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUT: Bound<'static> =
        Bound { method: "PUT", content_type: "image/png", content_length: "5", disposition: "" };

    #[test]
    fn a_signature_verifies_until_it_expires() {
        let signer = Signer::new(b"k");
        let signature = signer.sign("uploads/a.png", &PUT, 100);
        assert_eq!(signer.verify("uploads/a.png", &PUT, 100, &signature, 99), Ok(()));
        assert_eq!(
            signer.verify("uploads/a.png", &PUT, 100, &signature, 100),
            Err(Refusal::Expired)
        );
    }

    #[test]
    fn every_bound_value_is_covered() {
        let signer = Signer::new(b"k");
        let signature = signer.sign("uploads/a.png", &PUT, 100);
        let others = [
            Bound { content_type: "image/gif", ..PUT },
            Bound { content_length: "6", ..PUT },
            Bound { method: "GET", ..PUT },
            Bound { disposition: "inline", ..PUT },
        ];
        for other in others {
            assert_eq!(
                signer.verify("uploads/a.png", &other, 100, &signature, 0),
                Err(Refusal::Mismatch),
                "{other:?}"
            );
        }
        assert_eq!(
            signer.verify("uploads/b.png", &PUT, 100, &signature, 0),
            Err(Refusal::Mismatch)
        );
        assert_eq!(
            signer.verify("uploads/a.png", &PUT, 101, &signature, 0),
            Err(Refusal::Mismatch),
            "a later expiry is not accepted"
        );
        assert_eq!(
            Signer::new(b"other").verify("uploads/a.png", &PUT, 100, &signature, 0),
            Err(Refusal::Mismatch)
        );
        assert_eq!(signer.verify("uploads/a.png", &PUT, 100, "zz", 0), Err(Refusal::Mismatch));
    }
}
