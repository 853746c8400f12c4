//! Search on `make dev`: the gateway's own worker keeps the index in the data directory's blob
//! store, readers find a publication within seconds, and `reindex-search` (`make reindex`)
//! rebuilds a lost index from the table.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{
    free_port,
    restart::{call, gateway, login, start},
};

/// Waits until the search for `q` finds exactly `titles` (the worker's index reaches the
/// readers within seconds): waits for the answer, a minute being only a failure's bound.
async fn searched(port: u16, q: &str, titles: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let page = call(port, "GET", &format!("/api/v1/search?q={q}"), None, Value::Null).await;
        let records = page["data"]["records"].as_array().cloned().unwrap_or_default();
        let found: Vec<&str> = records.iter().filter_map(|r| r["title"].as_str()).collect();
        if found == titles {
            return;
        }
        assert!(Instant::now() < deadline, "{q}: never {titles:?}, still {page}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_gateways_worker_keeps_the_index_on_disk_and_reindex_rebuilds_it() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let index = data.path().join("blobs/objects/search");
    {
        let _gateway = start(data.path(), port).await;
        let session = login(port, "boss", "Boss12345").await.1;
        let token = session["data"]["token"].as_str().expect("a token").to_string();
        for (title, content) in [("Lighthouse keeping", "灯塔看守人的日常"), ("Tide tables", "x")]
        {
            let body = json!({"title": title, "content": content});
            let created = call(port, "POST", "/api/v1/admin/articles", Some(&token), body).await;
            let id = created["data"].as_str().expect("an id").to_string();
            let path = format!("/api/v1/admin/articles/{id}/publish");
            assert_eq!(call(port, "PUT", &path, Some(&token), Value::Null).await["code"], 200);
        }
        searched(port, "lighthouse", &["Lighthouse keeping"]).await;
        searched(port, "%E7%81%AF%E5%A1%94", &["Lighthouse keeping"]).await;
    }
    assert!(index.is_dir(), "the index is in the data directory's blob store");
    std::fs::remove_dir_all(&index).unwrap();
    let rebuilt = gateway(data.path(), 0, &["reindex-search"]).output().unwrap();
    assert!(rebuilt.status.success());
    let said = String::from_utf8_lossy(&rebuilt.stdout).to_string();
    assert!(said.contains("search index rebuilt: 2 published articles"), "{said}");
    assert!(index.is_dir(), "stored again");
    let _gateway = start(data.path(), port).await;
    searched(port, "tide", &["Tide tables"]).await;
}
