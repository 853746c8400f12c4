//! Starting a stack from the template, and what the tests and `make stack` ask of it.

mod check;
mod environment;
mod secrets;
mod wire;

use std::{
    collections::BTreeMap,
    net::SocketAddr,
    path::PathBuf,
    sync::{atomic::AtomicBool, Arc, Mutex, PoisonError},
    time::Duration,
};

use anyhow::{bail, Context, Result};
use axum::body::Bytes;
use serde_json::Value;

pub use check::{key_prefix, symbolic, Finding, Row};

use crate::{
    clients::{Clients, Emulators},
    cors::Cors,
    front::{self, Front},
    functions::{Function, FunctionConfig, InvokeError, Outcome},
    iam::Policy,
    logs::Logs,
    provision::{self, Choices, Provisioned},
    proxy::{self, Upstreams},
    recorder::Recorder,
    runtime_api::RuntimeApi,
    template::{intrinsics::Resolver, EventSpec, FunctionSpec, Parameters, Template},
};

/// How to start a stack.
#[derive(Clone, Debug)]
pub struct StackOptions {
    /// The repository (cargo-lambda reads its workspace; template and builds are found there).
    pub workspace: PathBuf,
    /// The template.
    pub template: PathBuf,
    /// Where the functions' builds are: `<dir>/<binary>/bootstrap` (`make stack-build`).
    pub functions_dir: PathBuf,
    /// Where the stack writes its logs.
    pub state_dir: PathBuf,
    /// The stack's name (the prefix of generated resource names).
    pub name: String,
    /// Parameter values other than the template's defaults.
    pub parameters: BTreeMap<String, String>,
    /// Values of secrets (by logical id) instead of generated ones.
    pub secret_values: BTreeMap<String, String>,
    /// Where the front listens.
    pub listen: SocketAddr,
    /// A period for every schedule instead of the template's rate (tests).
    pub schedule_period: Option<Duration>,
    /// A visibility timeout for every queue instead of the template's (tests).
    pub visibility_timeout: Option<u32>,
    /// Resources that exist already, by logical id: their names (`make localstack`'s, created
    /// by LocalStack's ready hook). The stack uses them instead of creating these.
    pub existing: BTreeMap<String, String>,
    /// Whether the queues' event source mappings poll from the start.
    pub event_sources_enabled: bool,
    /// Instances a function may run at once.
    pub max_instances: usize,
    /// What every AWS call of a function takes beyond the emulator's own time (AWS's in-region
    /// latency; without it, calls a function makes together hardly overlap on loopback).
    pub aws_latency: Duration,
    /// Print the functions' output and one line per request.
    pub echo: bool,
    /// The emulators.
    pub emulators: Emulators,
}

/// A running stack; it stops (processes ended) when dropped with its runtime.
pub struct Stack {
    options: StackOptions,
    template: Template,
    parameters: Mutex<Parameters>,
    provisioned: Provisioned,
    clients: Clients,
    recorder: Arc<Recorder>,
    _runtime: RuntimeApi,
    functions: Vec<(FunctionSpec, Arc<Function>, SocketAddr)>,
    policies: Mutex<BTreeMap<String, Policy>>,
    front: Arc<Front>,
    url: String,
    event_sources: Vec<Arc<AtomicBool>>,
}

impl Stack {
    /// Creates the resources and starts the front, the mappings and the schedules; the
    /// functions start on their first invocation.
    pub async fn start(options: StackOptions) -> Result<Self> {
        let template = Template::load(&options.template)?;
        let parameters = Parameters::resolve(&template, &options.parameters)?;
        parameters.check_rules(&template)?;
        let clients = Clients::new(&options.emulators);
        let choices = Choices {
            secret_values: options.secret_values.clone(),
            visibility_timeout: options.visibility_timeout,
            existing: options.existing.clone(),
        };
        let mut provisioned =
            provision::provision(&template, &parameters, &options.name, &clients, &choices)
                .await
                .context("creating the template's resources on the emulators")?;
        std::fs::create_dir_all(&options.state_dir)?;
        let runtime =
            RuntimeApi::start(&options.workspace, &options.state_dir.join("runtime-api.log"))
                .await?;
        let scheduled = template.functions()?.into_iter().filter(|spec| {
            spec.events
                .iter()
                .any(|event| matches!(event, crate::template::EventSpec::Schedule { .. }))
        });
        let scheduled = scheduled.map(|spec| spec.logical_id).collect();
        let recorder = Arc::new(Recorder::new(provisioned.schemas.clone(), scheduled));
        let upstreams = Upstreams {
            dynamodb: options.emulators.dynamodb.clone(),
            moto: options.emulators.moto.clone(),
            s3: options.emulators.s3.clone(),
            bedrock: format!("http://{}", crate::bedrock::start().await?),
        };
        let conditions = template.document()["Conditions"].clone();
        let resolver =
            Resolver::new(&parameters, &conditions, &provisioned.physical, &options.name);
        // The distributions read their buckets as the bucket policies let them.
        let policies: Vec<Value> = template
            .resources_of_type("AWS::S3::BucketPolicy")?
            .iter()
            .filter_map(|(_, properties)| resolver.resolve(properties).ok())
            .collect();
        for distribution in std::mem::take(&mut provisioned.distributions) {
            distribution.serve(clients.s3.clone(), &policies)?;
        }
        let mut functions = vec![];
        let mut policies = BTreeMap::new();
        for spec in template.functions()? {
            let endpoint = proxy::start(
                &spec.logical_id,
                recorder.clone(),
                upstreams.clone(),
                options.aws_latency,
            )
            .await?;
            let function =
                Self::function_config(&options, &spec, &resolver, &provisioned, endpoint)?;
            let logs = Logs::new(
                Some(options.state_dir.join(format!("{}.log", spec.binary))),
                options.echo,
            )?;
            let function = Arc::new(Function::start(function, &runtime, logs).await?);
            policies.insert(spec.logical_id.clone(), Self::policy(&spec, &resolver)?);
            functions.push((spec, function, endpoint));
        }
        let (routes, event_sources) =
            wire::events(&options, &functions, &resolver, &provisioned, &clients)?;
        let cors = match template.http_api_cors()? {
            Some(value) => Some(Cors::from_configuration(&resolver.resolve(&value)?)?),
            None => None,
        };
        let api_id = template
            .resources_of_type("AWS::Serverless::HttpApi")?
            .first()
            .and_then(|(id, _)| provisioned.physical.get(id))
            .map_or_else(|| "local".to_string(), |p| p.reference.clone());
        let front = Arc::new(Front {
            routes,
            functions: functions.iter().map(|(_, f, _)| f.clone()).collect(),
            cors,
            api_id,
            access_log: options.echo,
            events: Mutex::default(),
        });
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .with_context(|| format!("binding {}", options.listen))?;
        let url = format!("http://{}", listener.local_addr()?);
        let app = front::router(front.clone());
        tokio::spawn(async move {
            let service = app.into_make_service_with_connect_info::<SocketAddr>();
            if let Err(error) = axum::serve(listener, service).await {
                eprintln!("[stack] the front stopped: {error}");
            }
        });
        Ok(Self {
            options,
            template,
            parameters: Mutex::new(parameters),
            provisioned,
            clients,
            recorder,
            _runtime: runtime,
            functions,
            policies: Mutex::new(policies),
            front,
            url,
            event_sources,
        })
    }

    fn function_config(
        options: &StackOptions,
        spec: &FunctionSpec,
        resolver: &Resolver,
        provisioned: &Provisioned,
        endpoint: SocketAddr,
    ) -> Result<FunctionConfig> {
        let bootstrap = options.functions_dir.join(&spec.binary).join("bootstrap");
        if !bootstrap.exists() {
            bail!(
                "no build of {} at {}: run `make stack-build` (each function built with its own \
                 features, as `make package` builds it)",
                spec.binary,
                bootstrap.display()
            );
        }
        let physical = &provisioned.physical[&spec.logical_id];
        let environment =
            environment::instance_environment(spec, resolver, physical, &bootstrap, endpoint)?;
        Ok(FunctionConfig {
            logical_id: spec.logical_id.clone(),
            binary: spec.binary.clone(),
            bootstrap,
            environment,
            timeout: crate::template::seconds(&resolver.resolve(&spec.timeout)?)?,
            max_instances: options.max_instances.max(1),
        })
    }

    fn policy(spec: &FunctionSpec, resolver: &Resolver) -> Result<Policy> {
        let resolved: Vec<Value> =
            spec.policies.iter().map(|p| resolver.resolve(p)).collect::<Result<_>>()?;
        Policy::from_policies(&resolved).with_context(|| format!("policies of {}", spec.logical_id))
    }

    /// The front's base URL, e.g. `http://127.0.0.1:3000`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The options it started with.
    pub fn options(&self) -> &StackOptions {
        &self.options
    }

    /// The clients of the emulators behind it.
    pub fn clients(&self) -> &Clients {
        &self.clients
    }

    /// The `Ref` of the resource `logical_id`.
    pub fn reference(&self, logical_id: &str) -> Option<&str> {
        self.provisioned.physical.get(logical_id).map(|p| p.reference.as_str())
    }

    /// The attribute `attribute` of the resource `logical_id`.
    pub fn attribute(&self, logical_id: &str, attribute: &str) -> Option<&str> {
        let physical = self.provisioned.physical.get(logical_id)?;
        physical.attributes.get(attribute).map(String::as_str)
    }

    /// Logical ids of the template's resources of type `kind`.
    pub fn logical_ids(&self, kind: &str) -> Vec<String> {
        self.template
            .resources_of_type(kind)
            .map(|all| all.into_iter().map(|(id, _)| id).collect())
            .unwrap_or_default()
    }

    /// Resources of the template the stack does not emulate (logical id, type).
    pub fn not_emulated(&self) -> &[(String, String)] {
        &self.provisioned.not_emulated
    }

    /// The function whose logical id or binary is `name`.
    pub fn function(&self, name: &str) -> Option<Arc<Function>> {
        self.functions
            .iter()
            .find(|(spec, ..)| spec.logical_id == name || spec.binary == name)
            .map(|(_, function, _)| function.clone())
    }

    /// Every function: logical id and binary.
    pub fn function_names(&self) -> Vec<(String, String)> {
        self.functions.iter().map(|(s, ..)| (s.logical_id.clone(), s.binary.clone())).collect()
    }

    /// The HTTP API routes of the function `name` (`METHOD`, `/path`), `$default` left out.
    pub fn http_routes(&self, name: &str) -> Vec<(String, String)> {
        let Some((spec, ..)) =
            self.functions.iter().find(|(s, ..)| s.logical_id == name || s.binary == name)
        else {
            return vec![];
        };
        spec.events
            .iter()
            .filter_map(|event| match event {
                EventSpec::Http { route: Some(route), .. } => Some(route.clone()),
                _ => None,
            })
            .collect()
    }

    /// Invokes the function `name` with `payload`, as the Invoke API does.
    pub async fn invoke(&self, name: &str, payload: &Value) -> Result<Outcome, InvokeError> {
        let function = self
            .function(name)
            .ok_or_else(|| InvokeError::Runtime(format!("no function {name}")))?;
        function.invoke(Bytes::from(payload.to_string())).await
    }

    /// Enables or disables every SQS event source mapping.
    pub fn set_event_sources_enabled(&self, enabled: bool) {
        for flag in &self.event_sources {
            flag.store(enabled, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// What the functions asked of AWS.
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// The latest events the front sent (logical id of the function, event).
    pub fn front_events(&self) -> Vec<(String, Value)> {
        self.front.events()
    }

    /// The parameter values in effect.
    pub fn parameters(&self) -> Parameters {
        self.parameters.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Deploys new parameter values, as `sam deploy --parameter-overrides` would: every
    /// function's environment and policies are resolved again and its instances recycled.
    pub fn update_parameters(&self, overrides: &BTreeMap<String, String>) -> Result<()> {
        let mut merged: BTreeMap<String, String> = self.options.parameters.clone();
        let current = self.parameters();
        merged.extend(current.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        merged.extend(overrides.clone());
        let parameters = Parameters::resolve(&self.template, &merged)?;
        parameters.check_rules(&self.template)?;
        let conditions = self.template.document()["Conditions"].clone();
        let resolver =
            Resolver::new(&parameters, &conditions, &self.provisioned.physical, &self.options.name);
        let mut policies = BTreeMap::new();
        let mut configs = vec![];
        for (spec, _, endpoint) in &self.functions {
            let config = Self::function_config(
                &self.options,
                spec,
                &resolver,
                &self.provisioned,
                *endpoint,
            )?;
            policies.insert(spec.logical_id.clone(), Self::policy(spec, &resolver)?);
            configs.push(config);
        }
        for ((_, function, _), config) in self.functions.iter().zip(configs) {
            function.set_environment(config.environment);
        }
        *self.policies.lock().unwrap_or_else(PoisonError::into_inner) = policies;
        *self.parameters.lock().unwrap_or_else(PoisonError::into_inner) = parameters;
        Ok(())
    }
}
