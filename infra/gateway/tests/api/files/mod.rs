//! API tests of the files area, on both adapter sets: in-process on the embedded table and the
//! local blob store (its signed URLs routed through the gateway's router), and over HTTP through
//! the gateway on DynamoDB Local with S3 on s3s-fs, which verifies the signatures.

mod flow;
mod legacy;
mod public;
mod rules;
mod sharing;
pub mod steps;
mod variants;
mod verify;

on_every_target!(
    flow::the_full_flow_stores_the_bytes_and_gives_them_back,
    flow::a_put_with_only_the_content_type_succeeds,
    flow::a_put_with_another_length_or_type_is_refused_by_the_storage,
    flow::urls_expire_after_the_configured_minutes,
    flow::confirming_twice_is_harmless,
    flow::images_are_checked_and_documents_served_as_declared_or_saved,
    flow::a_request_without_a_token_gets_10002_in_the_files_envelope,
    rules::every_validation_error_has_its_code,
    rules::deleting_an_unknown_file_succeeds,
    rules::only_the_owner_or_an_administrator_acts_on_a_file,
    verify::confirm_before_the_upload_answers_10001_and_keeps_the_file_pending,
    verify::bytes_other_than_the_declared_md5_make_the_file_failed,
    verify::bytes_of_another_size_make_the_file_failed,
    verify::a_put_to_the_upload_url_after_confirm_changes_nothing,
    verify::concurrent_confirms_complete_an_upload_once,
    verify::stale_staged_uploads_are_removed_and_fresh_ones_kept,
    sharing::an_instant_upload_gives_the_owner_a_new_record_of_their_stored_object,
    sharing::instant_upload_never_crosses_users,
    sharing::pending_uploads_of_the_same_content_are_not_shared,
    sharing::concurrent_presigned_calls_after_completion_share_one_object,
    sharing::the_stored_object_goes_only_with_the_last_live_record,
    sharing::concurrent_instant_uploads_and_deletes_keep_exact_references,
    sharing::many_concurrent_deletes_of_one_shared_object_all_succeed,
    legacy::records_counted_in_a_legacy_marker_still_release_it,
    legacy::a_pending_record_without_a_staging_key_confirms_the_bytes_at_its_key,
    public::a_public_image_is_served_to_anyone_at_a_url_that_never_expires,
    public::only_images_are_public_and_the_rest_of_the_bucket_stays_private,
    public::a_bad_access_policy_or_reference_is_refused_with_10001,
    variants::a_public_image_gets_resized_copies_that_anyone_reads_and_that_go_with_it,
    variants::private_images_and_documents_send_no_event_and_list_no_variants,
    variants::an_image_whose_pixels_cannot_be_decoded_is_refused_once_and_not_retried,
    ;
    counting_calls:
    rules::file_calls_cost_what_the_data_model_says,
);
