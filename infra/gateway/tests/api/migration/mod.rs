//! The move of items stored under earlier layouts to the present one (`blog-gateway
//! migrate-indexes`), on every target: private partitions in gsi1 and gsi2, and comments
//! before their threads had key ranges.

mod earlier;
mod indexes;
mod stale;
mod threads;

on_every_target!(
    indexes::items_of_the_earlier_layout_move_exactly_once_and_the_administration_lists_them_again,
    stale::a_move_decided_on_a_stale_read_keeps_what_changed_since_and_unknown_items_stay,
    threads::comments_of_the_earlier_layout_join_their_threads_once_with_exact_entries,
);
