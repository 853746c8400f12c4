//! The trust roots compiled in for the AWS SDK clients (`shared/core/src/ports/aws-trust-roots.pem`,
//! trusted alone in Lambda under the template's default TrustStore=aws): the certificates are the
//! ones their header names by fingerprint, rustls takes every one as a trust anchor, and each is
//! in the machine's system bundle (the Mozilla root store).

use std::path::{Path, PathBuf};

use rustls::pki_types::{pem::PemObject, CertificateDer};
use sha2::{Digest, Sha256};

fn roots_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/ports/aws-trust-roots.pem")
}

fn roots() -> Vec<CertificateDer<'static>> {
    CertificateDer::pem_file_iter(roots_file())
        .expect("the roots file opens")
        .collect::<Result<_, _>>()
        .expect("every PEM block is a certificate")
}

fn fingerprint(der: &[u8]) -> String {
    let digest = Sha256::digest(der);
    digest.iter().map(|byte| format!("{byte:02X}")).collect::<Vec<_>>().join(":")
}

#[test]
fn the_roots_are_the_five_certificates_their_header_names_by_fingerprint() {
    let text = std::fs::read_to_string(roots_file()).unwrap();
    let listed: Vec<&str> = text.lines().filter_map(|line| line.strip_prefix("SHA-256 ")).collect();
    let found: Vec<String> = roots().iter().map(|der| fingerprint(der)).collect();
    assert_eq!(found.len(), 5, "Amazon Root CA 1-4 and Starfield Services Root G2");
    assert_eq!(found, listed);
}

#[test]
fn rustls_takes_every_root_as_a_trust_anchor() {
    let mut store = rustls::RootCertStore::empty();
    let (valid, invalid) = store.add_parsable_certificates(roots());
    assert_eq!((valid, invalid), (5, 0));
}

#[test]
fn every_root_is_in_the_system_bundle_of_this_machine() {
    let bundles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"];
    let bundle = bundles
        .iter()
        .find(|path| Path::new(path).is_file())
        .expect("a system CA bundle (Debian's ca-certificates or Amazon Linux's ca-bundle)");
    let system: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(bundle).unwrap().filter_map(Result::ok).collect();
    for root in roots() {
        assert!(system.contains(&root), "{} is not in {bundle}", fingerprint(&root));
    }
}
