//! Kept-alive connections over real TCP: every answer either leaves the connection usable for
//! the next request or says `Connection: close`, whether or not the API read the request's
//! body (a 401 before the JSON is parsed, a 404 of an unknown path, a refused signature). The
//! client writes each request's head and body in writes of their own, as Python's httpx does,
//! and sends the next request once it has the answer, on the same connection; on the local
//! gateway (embedded adapters) and on the stack's front.

use std::{io, net::SocketAddr};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

use crate::support::Api;

/// Pairs of a refused request with a body and a read after it.
const PAIRS: usize = 300;

/// The body of the refused request of pair `pair`: a tag's update (a few dozen bytes, which
/// mostly arrive with the head), or every other time an article's (64 KB, which do not).
fn body(pair: usize) -> Vec<u8> {
    let text =
        if pair.is_multiple_of(2) { "Renamed".to_string() } else { "An article. ".repeat(5_461) };
    serde_json::json!({ "name": text, "content": text }).to_string().into_bytes()
}

/// One answer: status, whether it says `Connection: close`, body.
#[derive(Debug)]
struct Answer {
    status: u16,
    closes: bool,
    body: Vec<u8>,
}

/// One client connection, read as a stream of HTTP/1.1 answers.
struct Connection {
    stream: TcpStream,
    read: Vec<u8>,
}

impl Connection {
    async fn open(address: SocketAddr) -> Connection {
        let stream = TcpStream::connect(address).await.expect("connecting");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        Connection { stream, read: Vec::new() }
    }

    /// Writes a request: its head, then its body (when it has one) in a write of its own.
    async fn send(&mut self, method: &str, path: &str, body: &[u8]) -> io::Result<()> {
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: api.test\r\n");
        if !body.is_empty() || method != "GET" {
            head.push_str("Content-Type: application/json\r\n");
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        head.push_str("\r\n");
        self.stream.write_all(head.as_bytes()).await?;
        if !body.is_empty() {
            self.stream.write_all(body).await?;
        }
        Ok(())
    }

    /// Reads more of the stream; an error when it has ended.
    async fn fill(&mut self) -> io::Result<()> {
        let mut chunk = [0u8; 16 * 1024];
        match self.stream.read(&mut chunk).await? {
            0 => Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed")),
            n => {
                self.read.extend_from_slice(&chunk[..n]);
                Ok(())
            }
        }
    }

    /// The next answer (with a `Content-Length`), or the error that ended the connection.
    async fn answer(&mut self) -> io::Result<Answer> {
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut response = httparse::Response::new(&mut headers);
            let parsed = response.parse(&self.read).map_err(io::Error::other)?;
            let httparse::Status::Complete(head) = parsed else {
                self.fill().await?;
                continue;
            };
            let value = |name: &str| {
                response
                    .headers
                    .iter()
                    .find(|header| header.name.eq_ignore_ascii_case(name))
                    .map(|header| String::from_utf8_lossy(header.value).to_ascii_lowercase())
            };
            let length: usize = value("content-length")
                .and_then(|length| length.parse().ok())
                .expect("the answers here have a Content-Length");
            let closes = value("connection").is_some_and(|value| value.contains("close"));
            let status = response.code.expect("a status");
            while self.read.len() < head + length {
                self.fill().await?;
            }
            let body = self.read[head..head + length].to_vec();
            self.read.drain(..head + length);
            return Ok(Answer { status, closes, body });
        }
    }

    /// Whether the server has closed the connection (and sent nothing more).
    async fn ended(&mut self) -> bool {
        let mut chunk = [0u8; 1];
        matches!(self.stream.read(&mut chunk).await, Ok(0) | Err(_))
    }
}

/// A request refused before its body is read, and its status.
type Refused = (&'static str, &'static str, u16);

/// What the pairs came to.
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    /// The read after the refusal was answered on the same connection.
    reused: usize,
    /// The refusal said `Connection: close` (the client opens a new one).
    closed: usize,
    /// The read got no answer: the connection was dropped without a word.
    dropped: usize,
}

/// [`PAIRS`] times, on one connection while it lasts: a refused request with a [`body`], then
/// a GET of `read` once the refusal is answered.
async fn pairs(address: SocketAddr, refused: &[Refused], read: &str) -> Tally {
    let mut tally = Tally::default();
    let mut connection = Connection::open(address).await;
    for pair in 0..PAIRS {
        let (method, path, status) = refused[pair % refused.len()];
        connection.send(method, path, &body(pair)).await.expect("sending the refused request");
        let answer = connection.answer().await.expect("the refusal is answered");
        assert_eq!(answer.status, status, "{method} {path}: {answer:?}");
        if answer.closes {
            tally.closed += 1;
            connection = Connection::open(address).await;
            continue;
        }
        let answered = match connection.send("GET", read, b"").await {
            Ok(()) => connection.answer().await.ok(),
            Err(_) => None,
        };
        match answered {
            Some(answer) => {
                assert_eq!(answer.status, 200, "GET {read}: {answer:?}");
                tally.reused += 1;
                continue;
            }
            None => tally.dropped += 1,
        }
        connection = Connection::open(address).await;
    }
    tally
}

/// A request declaring a body over API Gateway's 10 MB is answered at once, without the body
/// being sent, with a 413 whose body holds `says` and `Connection: close`, and the server then
/// closes the connection.
async fn an_over_large_body_is_refused_and_the_connection_closed(address: SocketAddr, says: &str) {
    let mut connection = Connection::open(address).await;
    let head = "PUT /api/v1/admin/tags/5 HTTP/1.1\r\nHost: api.test\r\n\
                Content-Type: application/json\r\nContent-Length: 10485761\r\n\r\n";
    connection.stream.write_all(head.as_bytes()).await.unwrap();
    let answer = connection.answer().await.expect("an answer before the body");
    assert_eq!(answer.status, 413, "{answer:?}");
    assert!(String::from_utf8_lossy(&answer.body).contains(says), "{answer:?}");
    assert!(answer.closes, "the answer says Connection: close: {answer:?}");
    assert!(connection.ended().await, "the server closes the connection after it");
}

fn address_of(base: &str) -> SocketAddr {
    base.trim_start_matches("http://").parse().expect("an http://address:port base")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_gateway_keeps_a_connection_usable_after_answering_without_reading_the_body() {
    let api = Api::embedded().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().unwrap();
    tokio::spawn(local_gateway::serve(listener, api.ctx.clone(), std::future::pending()));
    let refused: [Refused; 3] = [
        ("PUT", "/api/v1/admin/tags/5", 401),
        ("POST", "/api/v1/no/such/endpoint", 404),
        // The local blob store refuses an unsigned upload.
        ("PUT", "/_blobs/uploads/anything.png", 403),
    ];
    let tally = pairs(address, &refused, "/api/v1/categories").await;
    assert_eq!(tally, Tally { reused: PAIRS, ..Tally::default() }, "{PAIRS} pairs");
    an_over_large_body_is_refused_and_the_connection_closed(address, r#""code":413"#).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the emulators and make stack-build; make test runs it"]
async fn the_stack_front_keeps_a_connection_usable_after_answering_without_reading_the_body() {
    let stack = crate::support::stack::start(&[]).await;
    let address = address_of(stack.url());
    let refused: [Refused; 2] =
        [("PUT", "/api/v1/admin/tags/5", 401), ("POST", "/api/v1/no/such/endpoint", 404)];
    let tally = pairs(address, &refused, "/api/v1/categories").await;
    assert_eq!(tally, Tally { reused: PAIRS, ..Tally::default() }, "{PAIRS} pairs");
    an_over_large_body_is_refused_and_the_connection_closed(address, "Request Entity Too Large")
        .await;
    crate::support::stack::finish(&stack, "connections");
}
