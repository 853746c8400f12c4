//! The index as one blob (one S3 object, or one file on disk).
//!
//! Layout, integers little-endian:
//!
//! ```text
//! magic "BLOGSRCH" | format u8 | crc32 of the body u32 | body
//! body:  generation u64 | next key u64
//!        entries u32, each: key u64 | id str | published_at i64 | pinned 0|1 | category 0|1 [str]
//!                           | tags u32 × str | dims u32 (0: no vector) [scale f32 | dims × i8]
//!        files u32, each:   name str | length u64 | bytes   (the tantivy index's live files)
//! str:   length u32 | UTF-8 bytes
//! ```
//!
//! The checksum is verified before anything is read, so a damaged or truncated bundle is
//! refused with [`SearchError::CorruptBundle`] and never reaches tantivy.

use std::path::Path;

use tantivy::directory::RamDirectory;
use tantivy::{Directory, Index, TantivyError};

use crate::catalog::{Catalog, Entry};
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::vectors::QuantizedVector;

const MAGIC: &[u8; 8] = b"BLOGSRCH";
/// The bundle format this build writes and reads; bump it with any change of layout, schema
/// or tokenizer (an older bundle is then refused and the index rebuilt).
pub const BUNDLE_FORMAT: u8 = 3;
const HEADER_LEN: usize = MAGIC.len() + 1 + 4;
const META_FILE: &str = "meta.json";
/// The list of files tantivy manages (and may delete once unused).
const MANAGED_FILE: &str = ".managed.json";

fn corrupt(reason: impl Into<String>) -> SearchError {
    SearchError::CorruptBundle(reason.into())
}

impl SearchIndex {
    /// The whole index (text index, catalog, vectors, generation) as one blob, which
    /// [`SearchIndex::from_bundle`] turns back into an identical index.
    pub fn to_bundle(&self) -> Result<Vec<u8>> {
        let mut names: Vec<String> = self
            .index
            .load_metas()?
            .list_segment_files()
            .into_iter()
            .filter_map(|path| path.to_str().map(str::to_owned))
            .collect();
        names.retain(|name| self.directory.exists(Path::new(name)).unwrap_or(false));
        names.sort_unstable();
        names.push(META_FILE.to_owned());

        let mut body = Vec::new();
        put_u64(&mut body, self.generation);
        put_u64(&mut body, self.catalog.next_key());
        let entries = self.catalog.entries_by_key();
        put_u32(&mut body, entries.len() as u32);
        for (key, entry) in entries {
            put_entry(&mut body, key, entry);
        }
        put_u32(&mut body, names.len() as u32);
        for name in &names {
            let file = self.directory.open_read(Path::new(name)).map_err(TantivyError::from)?;
            let bytes = file.read_bytes().map_err(TantivyError::from)?;
            put_str(&mut body, name);
            put_u64(&mut body, bytes.len() as u64);
            body.extend_from_slice(bytes.as_slice());
        }

        let mut bundle = Vec::with_capacity(HEADER_LEN + body.len());
        bundle.extend_from_slice(MAGIC);
        bundle.push(BUNDLE_FORMAT);
        bundle.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        bundle.extend_from_slice(&body);
        Ok(bundle)
    }

    /// Loads an index from a bundle into RAM. Refuses, without panicking, a blob that is not a
    /// bundle, is truncated or damaged, or was written in another format.
    pub fn from_bundle(bundle: &[u8]) -> Result<Self> {
        if bundle.len() < HEADER_LEN || &bundle[..MAGIC.len()] != MAGIC {
            return Err(corrupt("it does not start like a search bundle"));
        }
        let format = bundle[MAGIC.len()];
        if format != BUNDLE_FORMAT {
            return Err(SearchError::UnsupportedBundleVersion {
                found: format,
                supported: BUNDLE_FORMAT,
            });
        }
        let checksum =
            u32::from_le_bytes(bundle[MAGIC.len() + 1..HEADER_LEN].try_into().unwrap_or_default());
        let body = &bundle[HEADER_LEN..];
        if crc32fast::hash(body) != checksum {
            return Err(corrupt("its checksum does not match (damaged or truncated)"));
        }

        let mut reader = Reader { bytes: body };
        let generation = reader.u64()?;
        let next_key = reader.u64()?;
        let mut catalog = Catalog::default();
        let mut dims = None;
        for _ in 0..reader.u32()? {
            let (key, entry) = read_entry(&mut reader)?;
            if let Some(vector) = &entry.vector {
                if *dims.get_or_insert(vector.dims()) != vector.dims() {
                    return Err(corrupt("its vectors have different dimensions"));
                }
            }
            if catalog.get(key).is_some() || catalog.key_of(&entry.id).is_some() {
                return Err(corrupt("an article or key appears twice"));
            }
            catalog.insert(key, entry);
        }
        catalog.set_next_key(next_key);

        let directory = RamDirectory::create();
        let mut managed = Vec::new();
        for _ in 0..reader.u32()? {
            let name = reader.str()?;
            let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_');
            if name.is_empty() || name.starts_with('.') || !name.bytes().all(plain) {
                return Err(corrupt(format!("it holds a file with an invalid name {name:?}")));
            }
            let length =
                usize::try_from(reader.u64()?).map_err(|_| corrupt("a file is too long"))?;
            let bytes = reader.take(length)?;
            directory.atomic_write(Path::new(name), bytes).map_err(|e| corrupt(e.to_string()))?;
            if name != META_FILE {
                managed.push(format!("{name:?}"));
            }
        }
        if !reader.bytes.is_empty() {
            return Err(corrupt("it has bytes after its last file"));
        }
        let managed = format!("[{}]\n", managed.join(","));
        directory
            .atomic_write(Path::new(MANAGED_FILE), managed.as_bytes())
            .map_err(|e| corrupt(e.to_string()))?;

        let index = Index::open(directory.clone())
            .map_err(|e| corrupt(format!("its index cannot be opened: {e}")))?;
        let loaded = SearchIndex::open(directory, index, catalog, generation)?;
        let documents = loaded.reader.searcher().num_docs();
        if documents != loaded.catalog.len() as u64 {
            return Err(corrupt(format!(
                "its index holds {documents} documents but its catalog {} articles",
                loaded.catalog.len()
            )));
        }
        Ok(loaded)
    }
}

fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, value: &str) {
    put_u32(out, value.len() as u32);
    out.extend_from_slice(value.as_bytes());
}

fn put_entry(out: &mut Vec<u8>, key: u64, entry: &Entry) {
    put_u64(out, key);
    put_str(out, &entry.id);
    out.extend_from_slice(&entry.published_at.to_le_bytes());
    out.push(u8::from(entry.pinned));
    match &entry.category_id {
        Some(category) => {
            out.push(1);
            put_str(out, category);
        }
        None => out.push(0),
    }
    put_u32(out, entry.tag_ids.len() as u32);
    for tag in &entry.tag_ids {
        put_str(out, tag);
    }
    match &entry.vector {
        Some(vector) => {
            put_u32(out, vector.dims() as u32);
            out.extend_from_slice(&vector.scale().to_le_bytes());
            out.extend(vector.values().iter().map(|v| v.to_le_bytes()[0]));
        }
        None => put_u32(out, 0),
    }
}

fn read_entry(reader: &mut Reader<'_>) -> Result<(u64, Entry)> {
    let key = reader.u64()?;
    let id = reader.str()?.to_owned();
    let published_at = i64::from_le_bytes(reader.array()?);
    let pinned = match reader.take(1)?[0] {
        0 => false,
        1 => true,
        _ => return Err(corrupt("an article's pinned flag is neither 0 nor 1")),
    };
    let category_id = match reader.take(1)?[0] {
        0 => None,
        1 => Some(reader.str()?.to_owned()),
        _ => return Err(corrupt("an article's category flag is neither 0 nor 1")),
    };
    let tag_ids =
        (0..reader.u32()?).map(|_| Ok(reader.str()?.to_owned())).collect::<Result<_>>()?;
    let vector = match reader.u32()? as usize {
        0 => None,
        dims => {
            let scale = f32::from_le_bytes(reader.array()?);
            let values = reader.take(dims)?.iter().map(|&b| i8::from_le_bytes([b])).collect();
            let vector = QuantizedVector::from_parts(values, scale)
                .map_err(|_| corrupt(format!("the vector of article {id:?} is invalid")))?;
            Some(vector)
        }
    };
    if id.is_empty() {
        return Err(corrupt("an article has an empty id"));
    }
    Ok((key, Entry { id, published_at, pinned, category_id, tag_ids, vector }))
}

/// Reads the body front to back; running out of bytes is a corrupt bundle.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, length: usize) -> Result<&'a [u8]> {
        if self.bytes.len() < length {
            return Err(corrupt("it ends in the middle of its contents"));
        }
        let (taken, rest) = self.bytes.split_at(length);
        self.bytes = rest;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut array = [0; N];
        array.copy_from_slice(self.take(N)?);
        Ok(array)
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn str(&mut self) -> Result<&'a str> {
        let length = self.u32()? as usize;
        std::str::from_utf8(self.take(length)?).map_err(|_| corrupt("a name is not UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::HasLen;

    use crate::schema::Article;

    fn article(n: usize) -> Article {
        Article { id: n.to_string(), title: format!("rust {n}"), ..Article::default() }
    }

    fn live_bytes(index: &SearchIndex) -> usize {
        let mut names: Vec<String> = index
            .index
            .load_metas()
            .unwrap()
            .list_segment_files()
            .into_iter()
            .map(|path| path.to_string_lossy().into_owned())
            .collect();
        names.extend([META_FILE.to_owned(), MANAGED_FILE.to_owned()]);
        names
            .iter()
            .filter_map(|name| index.directory.open_read(Path::new(name)).ok())
            .map(|file| file.len())
            .sum()
    }

    #[test]
    fn a_loaded_index_lets_tantivy_delete_the_files_its_merges_replace() {
        let mut index = SearchIndex::new().unwrap();
        for n in 0..3 {
            index.upsert([article(n)]).unwrap();
        }
        let mut loaded = SearchIndex::from_bundle(&index.to_bundle().unwrap()).unwrap();
        for n in 3..20 {
            loaded.upsert([article(n)]).unwrap();
        }
        assert!(loaded.index.searchable_segment_metas().unwrap().len() < 8, "merges ran");
        assert_eq!(loaded.directory.total_mem_usage(), live_bytes(&loaded));
    }

    #[test]
    fn changes_of_one_article_merge_small_segments_and_leave_the_large_one() {
        let mut index = SearchIndex::new().unwrap();
        index.upsert((0..500).map(article)).unwrap();
        let large = |index: &SearchIndex| {
            let metas = index.index.searchable_segment_metas().unwrap();
            metas.iter().find(|meta| meta.max_doc() >= 500).map(|meta| meta.id())
        };
        let before = large(&index).expect("one segment holds the first 500");
        for n in 500..530 {
            index.upsert([article(n)]).unwrap();
        }
        assert_eq!(large(&index), Some(before), "the large segment was not rewritten");
        assert!(index.index.searchable_segment_metas().unwrap().len() < 10, "small ones merged");
        assert_eq!(index.len(), 530);
    }
}
