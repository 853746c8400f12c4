//! `blog-gateway`: serves the whole API locally, creates an administrator, or moves items of
//! the earlier index layout to the present one.

use anyhow::Context;
use blog_api::{
    articles, auth::bootstrap, comments, config::Config, files, index_migration, setup, telemetry,
};
use clap::{Parser, Subcommand};

/// Faster than glibc's malloc for the gateway's many short-lived request buffers
/// (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(version, about = "Local gateway of the blog API (configuration: BLOG_* variables)")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve every API area on BLOG_HOST:BLOG_PORT (the default).
    Serve,
    /// Create an administrator unless an account with that user name exists.
    CreateAdmin {
        /// User name (3-20 letters, digits, underscore).
        #[arg(long, env = "BLOG_ADMIN_USERNAME")]
        username: String,
        /// Password (8-20 characters with upper case, lower case and digits).
        #[arg(long, env = "BLOG_ADMIN_PASSWORD", hide_env_values = true)]
        password: String,
        /// E-mail address.
        #[arg(long, env = "BLOG_ADMIN_EMAIL")]
        email: String,
    },
    /// Move the items an earlier version kept in private partitions of gsi1 and gsi2 (drafts,
    /// schedules, comments and reports by status, users' comments, file records, accounts) to
    /// the present layout, and comments' replies into their threads' key ranges with each
    /// thread's entry; once done, markers make later runs read two items. Run it once after
    /// deploying this version over an older table (BLOG_STORE=dynamodb, BLOG_TABLE_NAME).
    MigrateIndexes,
    /// Rebuild the search index from the table and store it where the configuration keeps it
    /// (the local blob store, or BLOG_BUCKET_NAME's search/articles.index), then delete the
    /// search-token items versions before the index wrote. Run it after deploying over an
    /// existing table or changing the embedder; in AWS the worker does the same on the message
    /// {"type":"SearchIndexRebuildRequested"}.
    ReindexSearch,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let config = Config::from_env()?;
    telemetry::init(&config.log, config.log_json);
    let listen = config.listen;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let ctx = setup::context(config).await?;
            // Comments of an earlier layout join their threads before the tree is served (one
            // GetItem once done).
            let threads = comments::relayout::migrate_threads(ctx.table.as_ref()).await?;
            if !threads.already_done {
                tracing::info!(summary = threads.summary(), "comment threads migrated");
            }
            if let Some(outcome) = setup::bootstrap_admin(&ctx).await? {
                tracing::info!(?outcome, "administrator bootstrap");
            }
            // The worker keeps the search index in the blob store.
            let blobs = setup::gateway_blobs(&ctx.config).await?;
            tokio::spawn(files::staging::run_stale_upload_removal(blobs.clone()));
            let (ctx, worker) = setup::local_worker(ctx.with_blobs(blobs)).await?;
            tokio::spawn(worker);
            let background = ctx.clone();
            tokio::spawn(async move {
                background.telemetry.run_background(background.table.as_ref()).await
            });
            let listener = tokio::net::TcpListener::bind(listen)
                .await
                .with_context(|| format!("binding {listen}"))?;
            tracing::info!("serving the blog API on http://{listen}");
            let tally = ctx.tally.clone();
            local_gateway::serve(listener, ctx, shutdown_signal()).await?;
            // The views counted since the last flush are committed before the process ends.
            tally.flush().await.context("writing the counted views")?;
        }
        Command::CreateAdmin { username, password, email } => {
            let ctx = setup::context(config).await?;
            match bootstrap::ensure_admin(&ctx, &username, &password, &email).await? {
                bootstrap::Outcome::Created(id) => {
                    println!("administrator {username} created (id {id})")
                }
                bootstrap::Outcome::AlreadyExists => {
                    println!("an account named {username} exists already; nothing changed")
                }
            }
        }
        Command::ReindexSearch => {
            let table =
                setup::open_table(&Config { create_table: false, ..config.clone() }).await?;
            let blobs = setup::gateway_blobs(&config).await?;
            let embedder = setup::embedder(&config).await?;
            let keeper = articles::search::IndexKeeper::new(blobs);
            let count = keeper.rebuild(table.as_ref(), embedder.model_id()).await?;
            println!("search index rebuilt: {count} published articles");
            let tokens = articles::maintenance::remove_search_tokens(table.as_ref()).await?;
            println!("{tokens} search-token items of earlier versions deleted");
        }
        Command::MigrateIndexes => {
            // The table alone: no secret, and no table created (a deployed one comes from the
            // template).
            let table = setup::open_table(&Config { create_table: false, ..config }).await?;
            let outcome = index_migration::migrate_indexes(table.as_ref()).await?;
            println!("{}", outcome.summary());
            let threads = comments::relayout::migrate_threads(table.as_ref()).await?;
            println!("{}", threads.summary());
            if !outcome.unknown.is_empty() {
                anyhow::bail!("items of an unknown kind were left in gsi1 or gsi2 (listed above)");
            }
        }
    }
    Ok(())
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut signal) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            signal.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = interrupt => {}
        _ = terminate => {}
    }
    tracing::info!("shutting down");
}
