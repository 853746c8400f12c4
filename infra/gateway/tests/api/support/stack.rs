//! The suite's third target: the stack as template.yaml deploys it (`blog_stack`), one per
//! test, as `blog_stack::testing` describes it.

use std::{collections::BTreeMap, path::PathBuf, sync::Arc, time::Duration};

use blog_api::{
    config::Config,
    context::AppContext,
    ports::{
        blobs::s3::S3Blobs,
        embedder::local::LocalEmbedder,
        events::sqs::SqsQueue,
        table::{dynamodb::DynamoTable, Table},
    },
};
use blog_stack::{template::Template, Stack};

use super::{aws, events::Events, http_client, Api, Meter, Transport, ADMIN};

/// The repository.
pub fn workspace() -> PathBuf {
    blog_stack::testing::workspace()
}

/// Where the rows of the IAM report go (`make iam-report` reads them).
pub fn iam_rows_dir() -> PathBuf {
    workspace().join("target/stack/iam")
}

/// Starts a stack for one test with `parameters` beyond the administrator's.
pub async fn start(parameters: &[(&str, &str)]) -> Arc<Stack> {
    let options = blog_stack::testing::options(ADMIN, parameters).expect("stack options");
    Arc::new(Stack::start(options).await.expect("the stack starts"))
}

/// After a case: every AWS action the functions made is granted by the template (else the
/// case fails, naming them), and the rows of the IAM report are saved.
pub fn finish(stack: &Stack, case: &str) {
    stack.save_iam_rows(&iam_rows_dir()).expect("saving the IAM rows");
    let violations = stack.iam_violations();
    assert!(
        violations.is_empty(),
        "{case}: AWS would refuse these calls (AccessDenied):\n{}",
        violations.join("\n")
    );
}

fn reference(stack: &Stack, logical_id: &str) -> String {
    stack.reference(logical_id).unwrap_or_else(|| panic!("no {logical_id} in the stack")).into()
}

impl Api {
    /// The API on a stack of its own (see the module documentation).
    pub async fn stack() -> Api {
        Self::on(start(&[("RegistrationLimit", super::UNLIMITED_REGISTRATIONS)]).await).await
    }

    /// The API of `stack`, with a context on the stack's table, queue and bucket for the
    /// tests that look under the hood.
    pub async fn on(stack: Arc<Stack>) -> Api {
        let clients = stack.clients();
        let emulators = &stack.options().emulators;
        let table: Arc<dyn Table> =
            Arc::new(DynamoTable::new(clients.dynamodb.clone(), reference(&stack, "BlogTable")));
        let queue_url = reference(&stack, "EventsQueue");
        let events = aws::SqsEvents::existing(
            &emulators.moto,
            &queue_url,
            &reference(&stack, "EventsDeadLetterQueue"),
        );
        let secret = stack.secret_value("JwtSecret").await.expect("the stack's JWT secret");
        let actuator_token =
            stack.secret_value("ActuatorTokenSecret").await.expect("the actuator's token");
        let config = Config::from_lookup(|name| match name {
            "BLOG_JWT_SECRET" => Some(secret.clone()),
            "BLOG_STORE" => Some("dynamodb".into()),
            _ => None,
        })
        .expect("config");
        let blobs = S3Blobs::new(clients.s3.clone(), reference(&stack, "UploadsBucket"));
        let queue = SqsQueue::new(clients.sqs.clone(), queue_url);
        let ctx =
            blog_api::effects::wire(AppContext::new(table.clone(), config, secret.as_bytes()))
                .with_events(Arc::new(queue))
                .with_embedder(Arc::new(LocalEmbedder::new(512)))
                .with_blobs(Arc::new(blobs));
        Api {
            transport: Transport::Http { base: stack.url().to_string(), client: http_client() },
            table,
            meter: Meter::Stack(stack.clone()),
            events: Events::Sqs(events),
            ctx,
            vars: vec![],
            actuator_token: Some(actuator_token),
            stack: Some(stack),
            blob_dir: None,
        }
    }

    /// The stack the API runs on, if any.
    pub fn on_stack(&self) -> Option<&Arc<Stack>> {
        self.stack.as_ref()
    }

    /// Forgets what the token checks cached of the account `id`: in a process, its principal
    /// cache entry; on the stack, every function instance (new instances cache nothing).
    pub fn forget_principal(&self, id: u64) {
        match &self.stack {
            Some(stack) => {
                for (logical_id, _) in stack.function_names() {
                    stack.function(&logical_id).expect("a function").recycle();
                }
            }
            None => self.ctx.principals.invalidate(id),
        }
    }

    /// Deploys the template parameter `name` with `value`: on the stack, as `sam deploy
    /// --parameter-overrides` (new instances with the new environment); elsewhere, the
    /// variable the template feeds from that parameter is set in the API's configuration.
    pub async fn set_parameter(&mut self, name: &str, value: &str) {
        if let Some(stack) = &self.stack {
            let overrides = BTreeMap::from([(name.to_string(), value.to_string())]);
            stack.update_parameters(&overrides).expect("the parameter deploys");
            return;
        }
        self.set_variable(variable_referring_to(name), value).await;
    }

    /// Sets `variable` in the configuration of the API's process (in-process and gateway
    /// targets), which restarts on it.
    async fn set_variable(&mut self, variable: &'static str, value: &str) {
        self.vars.retain(|(k, _)| *k != variable);
        self.vars.push((variable, value.to_string()));
        let config = super::test_config(&self.vars);
        self.ctx = self.ctx.clone().with_config(config);
        match &mut self.transport {
            Transport::InProcess(router) => {
                *router = local_gateway::app(self.ctx.clone()).expect("every area has its ports")
            }
            Transport::Http { base, .. } => {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                *base = format!("http://{}", listener.local_addr().unwrap());
                let ctx = self.ctx.clone();
                tokio::spawn(local_gateway::serve(listener, ctx, std::future::pending()));
            }
        }
    }

    /// Gives the template's secret `logical_id` a new value: on the stack, as
    /// `put-secret-value` (new instances read it); elsewhere, the variable whose `_ARN` the
    /// template sets to that secret is set to the value instead.
    pub async fn set_secret(&mut self, logical_id: &str, value: &str) {
        if let Some(stack) = &self.stack {
            stack.set_secret_value(logical_id, value).await.expect("the secret changes");
            if logical_id == "ActuatorTokenSecret" {
                self.actuator_token = Some(value.to_string());
            }
            return;
        }
        let arn_variable = variable_referring_to(logical_id);
        let variable = arn_variable.strip_suffix("_ARN").expect("a secret's variable ends in _ARN");
        if variable == "BLOG_ACTUATOR_TOKEN" {
            self.actuator_token = Some(value.to_string());
        }
        self.set_variable(Box::leak(variable.to_string().into_boxed_str()), value).await;
    }

    /// Waits until what the functions measured so far is in the table's totals: in Lambda a
    /// function adds its figures at its first request after `MetricsExportSeconds`, so each
    /// HTTP function that ran gets one request after the interval, on a route no case counts
    /// (its longest route, a GET where it has one, parameters `0`; answered 400, 401 or 404).
    /// A no-op where one process measures everything.
    pub async fn wait_for_exports(&self) {
        let Some(stack) = &self.stack else { return };
        let parameters = stack.parameters();
        let seconds: u64 = parameters.get("MetricsExportSeconds").unwrap_or("60").parse().unwrap();
        tokio::time::sleep(Duration::from_millis(seconds * 1000 + 100)).await;
        for (logical_id, _) in stack.function_names() {
            let function = stack.function(&logical_id).unwrap();
            let routes = stack.http_routes(&logical_id);
            let longest = |method: Option<&str>| {
                routes
                    .iter()
                    .filter(|(m, _)| method.is_none_or(|wanted| m == wanted))
                    .max_by_key(|(_, path)| path.matches('/').count())
                    .cloned()
            };
            let Some((method, path)) = longest(Some("GET")).or_else(|| longest(None)) else {
                continue;
            };
            if function.cold_starts() == 0 {
                continue;
            }
            let path: Vec<String> = path
                .split('/')
                .map(|s| if s.starts_with('{') { "0".to_string() } else { s.to_string() })
                .collect();
            let reply = self.raw(&method, &path.join("/"), &[], None).await;
            assert!(reply.status < 500, "{method} {path:?}: {:?}", reply.body);
        }
    }
}

/// The variable of a function that the template sets to the parameter or resource `name`.
fn variable_referring_to(name: &str) -> &'static str {
    let template = Template::load(&workspace().join("template.yaml")).expect("template.yaml");
    let reference = serde_json::json!({ "Ref": name });
    // `!Ref name`, or `!If [condition, !Ref name, default]` (the parameter when it is set).
    let refers = |value: &serde_json::Value| {
        *value == reference || value["Fn::If"].get(1).is_some_and(|then| *then == reference)
    };
    let functions = template.functions().expect("functions");
    let variable = functions
        .iter()
        .flat_map(|f| f.environment.iter())
        .find(|(_, value)| refers(value))
        .map(|(variable, _)| variable.clone())
        .unwrap_or_else(|| panic!("no variable of the template is `!Ref {name}` when it is set"));
    Box::leak(variable.into_boxed_str())
}
