use super::*;
use crate::ports::embedder::cosine_distance;

/// Short articles in three topics: (topic, title, text).
const ARTICLES: [(&str, &str, &str); 8] = [
    (
        "rust",
        "ownership",
        "In Rust every value has a single owner, and when the owner goes out of scope the value \
         is dropped. Instead of copying a large vector into every function, you lend it out: a \
         shared borrow lets many readers look at the data at once, while a mutable borrow gives \
         one writer exclusive access. The borrow checker enforces these rules at compile time, \
         so data races simply cannot compile.",
    ),
    (
        "rust",
        "lifetimes",
        "Lifetimes are how the Rust compiler proves that a reference never outlives the data it \
         points to. Most of the time they are inferred, but a function returning a reference \
         derived from one of two arguments needs an explicit annotation such as 'a to tell the \
         borrow checker which input the output borrows from. Once you read lifetime errors as \
         questions about scope, the compiler messages become surprisingly helpful.",
    ),
    (
        "rust",
        "smart pointers",
        "Moving a String into a thread transfers ownership, and the compiler will refuse any \
         later use of the moved variable. When several owners really need the same value, Rust \
         offers reference counting with Rc, or Arc across threads, and interior mutability \
         through RefCell or Mutex. These smart pointers keep the ownership rules intact while \
         deferring some borrow checks from compile time to run time.",
    ),
    (
        "cooking",
        "pasta",
        "Good pasta starts with plenty of water salted until it tastes like the sea. Drop the \
         spaghetti in once the pot is at a rolling boil, stir during the first minute so the \
         strands do not stick, and taste a piece a minute before the packet says it is done. \
         Save a cup of the starchy cooking water before draining: a splash of it loosens a \
         tomato sauce and helps it cling to every strand of pasta.",
    ),
    (
        "cooking",
        "tomato sauce",
        "A simple tomato sauce needs only a few ingredients: olive oil, garlic, a tin of whole \
         plum tomatoes and a handful of basil. Warm the garlic gently in the oil without letting \
         it brown, crush the tomatoes into the pan with your hands, and let everything simmer \
         for twenty minutes until it thickens. Season with salt at the end and toss it with \
         freshly cooked pasta.",
    ),
    (
        "cooking",
        "roast tomatoes",
        "Roasting cherry tomatoes concentrates their sweetness, and they make a sauce for pasta \
         with almost no effort. Halve them, spread them on a tray with olive oil, garlic, a pinch \
         of sugar and some thyme, then roast in a hot oven until the skins blister and the \
         juices caramelise. Crush them with a fork, toss them with penne and a little of the \
         pasta cooking water, and finish with grated parmesan.",
    ),
    (
        "astronomy",
        "telescopes",
        "Choosing a first telescope is mostly a question of aperture. A wider mirror or lens \
         gathers more light, which reveals fainter stars, nebulae and galaxies, while the focal length \
         sets the magnification you can comfortably use. A small refractor on a sturdy mount \
         shows the rings of Saturn and the moons of Jupiter, but for deep-sky objects a dark \
         site far from city lights matters as much as the optics.",
    ),
    (
        "astronomy",
        "andromeda",
        "The Andromeda galaxy is the most distant object most people can see with the naked \
         eye, about two and a half million light years away. Like our own Milky Way it is a \
         spiral galaxy with hundreds of billions of stars, and astronomers measuring its motion \
         have found that the two galaxies are approaching each other and will merge in roughly \
         four billion years. A small telescope under a dark sky already shows its bright core.",
    ),
];

fn norm(v: &[f32]) -> f64 {
    v.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt()
}

/// Checks that every article ranks all the articles of its topic above all the others, printing
/// each one's neighbours by cosine distance. Returns the smallest margin (nearest other-topic
/// distance minus farthest same-topic distance) over the articles.
fn check_topic_ranking(embedder: LocalEmbedder) -> f32 {
    let vectors: Vec<Vec<f32>> = ARTICLES.iter().map(|a| embedder.embed_sync(a.2)).collect();
    let mut smallest_margin = f32::MAX;
    println!("{} dimensions", embedder.dimensions());
    for (i, (topic, title, _)) in ARTICLES.iter().enumerate() {
        let mut neighbours: Vec<(f32, usize)> = (0..ARTICLES.len())
            .filter(|&j| j != i)
            .map(|j| (cosine_distance(&vectors[i], &vectors[j]), j))
            .collect();
        neighbours.sort_by(|a, b| a.0.total_cmp(&b.0));
        let row: Vec<String> = neighbours
            .iter()
            .map(|&(d, j)| {
                let same = if ARTICLES[j].0 == *topic { "*" } else { "" };
                format!("{}{same} {d:.3}", ARTICLES[j].1)
            })
            .collect();
        println!("{topic}/{title}: {}", row.join(", "));
        let farthest_same = neighbours
            .iter()
            .filter(|&&(_, j)| ARTICLES[j].0 == *topic)
            .map(|&(d, _)| d)
            .fold(0.0, f32::max);
        let nearest_other = neighbours
            .iter()
            .filter(|&&(_, j)| ARTICLES[j].0 != *topic)
            .map(|&(d, _)| d)
            .fold(f32::MAX, f32::min);
        assert!(
            farthest_same < nearest_other,
            "{topic}/{title}: an article of another topic ranks among its own: {row:?}"
        );
        smallest_margin = smallest_margin.min(nearest_other - farthest_same);
    }
    println!("smallest margin {smallest_margin:.3}");
    smallest_margin
}

#[test]
fn articles_rank_every_article_of_their_topic_above_all_other_topics() {
    let margin = check_topic_ranking(LocalEmbedder::default());
    assert!(margin > 0.0);
}

#[test]
fn the_topic_ranking_holds_at_other_dimensions_too() {
    for dimensions in [512, 1024] {
        check_topic_ranking(LocalEmbedder::new(dimensions));
    }
}

#[test]
fn the_same_text_always_gives_the_same_vector() {
    let text = ARTICLES[0].2;
    let first = LocalEmbedder::default().embed_sync(text);
    for _ in 0..3 {
        assert_eq!(LocalEmbedder::default().embed_sync(text), first);
    }
}

/// Stored vectors stay comparable with new ones only while the algorithm is unchanged: a
/// failure here means bumping [`MODEL_ID`] (and re-embedding), not updating the numbers.
#[test]
fn vectors_are_pinned_across_runs_and_platforms() {
    let v = LocalEmbedder::new(8).embed_sync("Rust ownership");
    let pinned = [0.0, 0.2460211, -0.2460211, 0.0, 0.45524693, -0.73806334, 0.2460211, -0.2577472];
    for (x, p) in v.iter().zip(pinned) {
        assert!((x - p).abs() < 1e-6, "{v:?}");
    }
}

#[test]
fn vectors_are_normalised_and_as_long_as_the_dimensions() {
    for dimensions in [1, 7, 256, 1024] {
        for (_, _, text) in ARTICLES {
            let v = LocalEmbedder::new(dimensions).embed_sync(text);
            assert_eq!(v.len(), dimensions);
            assert!((norm(&v) - 1.0).abs() < 1e-5, "norm {}", norm(&v));
        }
    }
}

#[test]
fn text_with_nothing_to_embed_gives_the_zero_vector_unrelated_to_anything() {
    let embedder = LocalEmbedder::default();
    let article = embedder.embed_sync(ARTICLES[0].2);
    for text in ["", "   \n\t", "!?., -- ...", "it is what it is", "a b c"] {
        let v = embedder.embed_sync(text);
        assert_eq!(v, vec![0.0; DEFAULT_DIMENSIONS], "{text:?}");
        assert_eq!(cosine_distance(&v, &article), 1.0);
        assert_eq!(cosine_distance(&v, &v), 1.0);
    }
}

#[test]
fn case_punctuation_and_stop_words_do_not_matter() {
    let embedder = LocalEmbedder::default();
    assert_eq!(
        embedder.embed_sync("Borrowing, in Rust: the BORROW checker!"),
        embedder.embed_sync("borrowing rust borrow checker")
    );
}

#[test]
fn inflected_forms_of_a_word_are_the_same_word() {
    let embedder = LocalEmbedder::default();
    for (a, b) in [
        ("embedding", "embeddings"),
        ("galaxies", "galaxy"),
        ("tomatoes", "tomato"),
        ("borrowed", "borrows"),
        ("moving", "move"),
        ("stirring", "stir"),
    ] {
        assert_eq!(embedder.embed_sync(a), embedder.embed_sync(b), "{a} / {b}");
    }
    assert_ne!(embedder.embed_sync("telescope"), embedder.embed_sync("telescopic"));
}

#[test]
fn related_word_forms_are_close_thanks_to_character_n_grams() {
    let embedder = LocalEmbedder::new(1024);
    let d = |a: &str, b: &str| cosine_distance(&embedder.embed_sync(a), &embedder.embed_sync(b));
    let related = d("telescope", "telescopic");
    assert!(related < 0.8, "{related}");
    assert!(related < d("telescope", "microscope"));
    assert!(d("ownership", "owner") < d("ownership", "garlic"));
}

#[test]
fn stemming_leaves_short_non_english_and_suffix_only_words_alone() {
    for (word, stemmed) in [
        ("tomatoes", "tomato"),
        ("sauces", "sauc"),
        ("classes", "class"),
        ("embedding", "embed"),
        ("filled", "fill"),
        ("galaxy", "galaxi"),
        ("day", "day"),
        ("days", "day"),
        ("analysis", "analysis"),
        ("status", "status"),
        ("string", "string"),
        ("thing", "thing"),
        ("need", "need"),
        ("bus", "bus"),
        ("café", "café"),
        ("größe", "größe"),
        ("2024", "2024"),
    ] {
        assert_eq!(stem(word), stemmed, "{word}");
    }
}

#[test]
fn cjk_text_is_embedded_by_character_pairs() {
    let embedder = LocalEmbedder::default();
    let d = |a: &str, b: &str| cosine_distance(&embedder.embed_sync(a), &embedder.embed_sync(b));
    let tokyo = "东京的天气很好";
    assert!((norm(&embedder.embed_sync(tokyo)) - 1.0).abs() < 1e-5);
    assert!(d(tokyo, "今天东京天气晴朗") < d(tokyo, "我喜欢吃意大利面"));
    // Mixed scripts: the Latin word still counts as a word.
    assert!(d("Rust 编程语言", "Rust") < d("Rust 编程语言", "pasta"));
}

#[test]
fn stop_words_are_sorted_lower_case_and_unique() {
    assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    assert!(STOP_WORDS.iter().all(|w| w.chars().all(|c| c.is_ascii_lowercase())));
}

#[tokio::test]
async fn the_port_reports_the_model_and_dimensions() {
    let embedder = LocalEmbedder::new(64);
    assert_eq!((embedder.model_id(), embedder.dimensions()), (MODEL_ID, 64));
    assert_eq!(embedder.embed("ownership").await.unwrap(), embedder.embed_sync("ownership"));
}

#[test]
#[should_panic(expected = "at least one dimension")]
fn zero_dimensions_are_refused() {
    LocalEmbedder::new(0);
}
