//! HS256 access tokens with the decided claims: `sub`, `username`, `roles`, `iat`, `exp`, `jti`.

use std::time::Duration;

use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

/// Claims carried by an access token.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Claims {
    /// User id as a string.
    pub sub: String,
    /// User name at issue time.
    pub username: String,
    /// Roles at issue time.
    pub roles: Vec<String>,
    /// Issued at (epoch seconds).
    pub iat: i64,
    /// Expires at (epoch seconds).
    pub exp: i64,
    /// Token id.
    pub jti: String,
}

/// Signing and verification keys.
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
}

impl TokenKeys {
    /// Keys from a shared secret; tokens live `ttl`.
    pub fn new(secret: &[u8], ttl: Duration) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "iat", "sub"]);
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            ttl,
        }
    }

    /// Token validity in seconds (`expiresIn`).
    pub fn ttl_seconds(&self) -> u64 {
        self.ttl.as_secs()
    }

    /// Issues a token for an account.
    pub fn issue(&self, user_id: u64, username: &str, roles: &[String]) -> anyhow::Result<String> {
        let iat = chrono::Utc::now().timestamp();
        let claims = Claims {
            sub: user_id.to_string(),
            username: username.to_string(),
            roles: roles.to_vec(),
            iat,
            exp: iat + self.ttl.as_secs() as i64,
            jti: uuid::Uuid::new_v4().simple().to_string(),
        };
        Ok(encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)?)
    }

    /// Verifies signature (HS256 only: `alg: none` and others are refused) and expiry.
    pub fn verify(&self, token: &str) -> Option<Claims> {
        decode::<Claims>(token, &self.decoding, &self.validation).ok().map(|data| data.claims)
    }
}

/// The subject (`sub`) a well-formed token claims while its `exp` is after `now` (epoch
/// seconds), WITHOUT checking its signature: for telling callers apart where a forged claim
/// gains nothing that a forged `User-Agent` does not (counting views, in a function that holds
/// no signing key), never to let anyone in.
pub fn claimed_subject(token: &str, now: i64) -> Option<String> {
    use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};

    #[derive(Deserialize)]
    struct Claimed {
        sub: String,
        exp: i64,
    }
    let mut parts = token.split('.');
    let (Some(_header), Some(payload), Some(_signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let claimed: Claimed = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
    let plausible = !claimed.sub.is_empty() && claimed.sub.len() <= 64 && claimed.exp > now;
    plausible.then_some(claimed.sub)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};

    fn keys() -> TokenKeys {
        TokenKeys::new(b"0123456789abcdef0123456789abcdef", Duration::from_secs(60))
    }

    #[test]
    fn an_issued_token_verifies_with_its_claims() {
        let token = keys().issue(7, "alice", &["ROLE_USER".into()]).unwrap();
        let claims = keys().verify(&token).unwrap();
        assert_eq!(claims.sub, "7");
        assert_eq!(claims.username, "alice");
        assert_eq!(claims.exp - claims.iat, 60);
        assert_eq!(claims.jti.len(), 32);
    }

    #[test]
    fn a_token_signed_with_another_secret_is_refused() {
        let other = TokenKeys::new(b"another-secret-another-secret-xx", Duration::from_secs(60));
        let token = other.issue(7, "alice", &[]).unwrap();
        assert!(keys().verify(&token).is_none());
    }

    #[test]
    fn an_unsigned_alg_none_token_is_refused() {
        let token = keys().issue(7, "alice", &["ROLE_ADMIN".into()]).unwrap();
        let payload = token.split('.').nth(1).unwrap();
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        assert!(keys().verify(&format!("{header}.{payload}.")).is_none());
    }

    #[test]
    fn the_claimed_subject_is_read_without_the_key_while_the_token_lasts() {
        let token = keys().issue(7, "alice", &[]).unwrap();
        let now = chrono::Utc::now().timestamp();
        assert_eq!(claimed_subject(&token, now).as_deref(), Some("7"));
        assert_eq!(claimed_subject(&token, now + 60), None, "expired");
        for bad in
            ["", "a.b", "a.b.c.d", "x.!!!.y", &format!("h.{}.s", URL_SAFE_NO_PAD.encode("{}"))]
        {
            assert_eq!(claimed_subject(bad, now), None, "{bad}");
        }
    }

    #[test]
    fn an_expired_token_is_refused() {
        let expired = TokenKeys::new(b"0123456789abcdef0123456789abcdef", Duration::ZERO);
        let token = expired.issue(7, "alice", &[]).unwrap();
        std::thread::sleep(Duration::from_millis(1100));
        assert!(keys().verify(&token).is_none());
    }
}
