//! API tests of the feeds and the sitemap, on every target: each document parsed by an
//! independent parser (feedparser, xml.etree: infra/checks/feeds.py) and checked field by field
//! against the articles' own JSON answers.

mod check;
mod costs;
mod documents;
mod hosts;
mod sitemap;

on_every_target!(
    documents::the_blog_feeds_carry_every_field_of_the_latest_published_articles,
    documents::category_and_tag_feeds_hold_only_their_articles,
    documents::an_unknown_slug_is_a_404_in_the_articles_envelope,
    sitemap::the_sitemap_lists_the_home_every_category_and_tag_and_each_published_article,
    sitemap::a_sitemap_file_name_is_checked_and_an_empty_range_names_no_file,
    sitemap::past_the_per_file_limit_the_sitemap_is_an_index_of_its_files,
    sitemap::an_article_is_in_the_sitemap_once_the_worker_handled_its_event_and_leaves_with_it,
    sitemap::the_sweep_builds_the_pages_of_articles_published_before_them,
    hosts::a_forged_host_appears_in_no_feed_or_sitemap,
    ;
    counting_calls:
    costs::feeds_and_the_sitemap_cost_what_the_data_model_says,
);
