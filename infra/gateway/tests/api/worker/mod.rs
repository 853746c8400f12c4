//! The worker: ArticlePublishedEvent follow-ups, related articles, retries and the outbox,
//! on both adapter sets.

mod cases;

on_every_target!(
    cases::related_articles_rank_by_topic_once_the_worker_ran,
    cases::related_lists_skip_unpublished_articles_and_never_hold_the_article_itself,
    cases::related_validates_its_limit_and_hides_drafts,
    cases::a_duplicated_event_changes_nothing_twice,
    cases::a_poison_message_is_retried_then_dead_lettered,
    cases::an_event_that_could_not_be_sent_is_delivered_by_the_outbox_sweep,
    cases::the_webhook_gets_one_signed_post_per_event,
    cases::the_webhook_follows_no_redirect,
    ;
    counting_calls:
    cases::a_follow_up_reads_no_more_as_more_articles_are_related,
    cases::a_related_read_costs_two_calls,
);
