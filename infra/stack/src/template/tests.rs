use std::collections::BTreeMap;

use serde_json::json;

use super::{intrinsics::*, *};

const SAMPLE: &str = r#"
Parameters:
  Level: {Type: String, Default: info, AllowedValues: [info, debug]}
  Size: {Type: Number, Default: 512, MinValue: 256, MaxValue: 1024}
  Origins: {Type: String, Default: "*"}
  Email: {Type: String, Default: "", AllowedPattern: "^([^@]+@[^@]+)?$"}
Conditions:
  HasEmail: !Not [!Equals [!Ref Email, ""]]
Globals:
  Function:
    MemorySize: 256
    Environment:
      Variables:
        TABLE: !Ref Table
        LEVEL: !Ref Level
Resources:
  Table: {Type: AWS::DynamoDB::Table, Properties: {}}
  Fn:
    Type: AWS::Serverless::Function
    Metadata:
      BuildMethod: rust-cargolambda
    Properties:
      CodeUri: functions/fn/
      MemorySize: 1024
      Environment:
        Variables:
          LEVEL: override
          ARN: !GetAtt Table.Arn
          INDEX: !Sub "${Table.Arn}/index/*"
          LITERAL: !Sub "${!Table} in ${AWS::Region}"
          ORIGINS: !Split [",", !Ref Origins]
          MAIL: !If [HasEmail, !Ref Email, none]
      Events:
        Get: {Type: HttpApi, Properties: {Method: get, Path: "/things/{id}"}}
        Rest: {Type: HttpApi, Properties: {}}
"#;

fn physical() -> BTreeMap<String, Physical> {
    BTreeMap::from([(
        "Table".to_string(),
        Physical::new("t-1", &[("Arn", "arn:aws:dynamodb:us-east-1:1:table/t-1".to_string())]),
    )])
}

#[test]
fn short_form_intrinsics_become_their_long_form() {
    let template = Template::parse("A: !Ref X\nB: !GetAtt Q.Arn\nC: !Sub 'x'\n").unwrap();
    assert_eq!(
        template.document(),
        &json!({"A": {"Ref": "X"}, "B": {"Fn::GetAtt": ["Q", "Arn"]}, "C": {"Fn::Sub": "x"}})
    );
}

#[test]
fn globals_merge_into_functions_as_sam_merges_them() {
    let template = Template::parse(SAMPLE).unwrap();
    let functions = template.functions().unwrap();
    let function = &functions[0];
    assert_eq!((function.logical_id.as_str(), function.binary.as_str()), ("Fn", "fn"));
    assert_eq!(function.memory, json!(1024), "the function's own size wins");
    assert_eq!(function.environment["TABLE"], json!({"Ref": "Table"}), "Globals variables kept");
    assert_eq!(function.environment["LEVEL"], json!("override"), "the function's own value wins");
    let routes: Vec<_> = function
        .events
        .iter()
        .map(|e| match e {
            EventSpec::Http { route, .. } => route.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(routes, [Some(("GET".into(), "/things/{id}".into())), None]);
}

#[test]
fn intrinsics_resolve_against_parameters_and_physical_resources() {
    let template = Template::parse(SAMPLE).unwrap();
    let overrides = BTreeMap::from([("Origins".to_string(), "a,b".to_string())]);
    let parameters = Parameters::resolve(&template, &overrides).unwrap();
    let physical = physical();
    let resolver =
        Resolver::new(&parameters, &template.document()["Conditions"], &physical, "blog");
    let function = &template.functions().unwrap()[0];
    let env = |name: &str| resolver.resolve(&function.environment[name]).unwrap();
    assert_eq!(env("TABLE"), json!("t-1"));
    assert_eq!(env("LEVEL"), json!("override"));
    assert_eq!(env("ARN"), json!("arn:aws:dynamodb:us-east-1:1:table/t-1"));
    assert_eq!(env("INDEX"), json!("arn:aws:dynamodb:us-east-1:1:table/t-1/index/*"));
    assert_eq!(env("LITERAL"), json!("${Table} in us-east-1"));
    assert_eq!(env("ORIGINS"), json!(["a", "b"]));
    assert_eq!(env("MAIL"), json!("none"), "the condition follows the parameter");
    assert_eq!(resolver.string(&json!(512)).unwrap(), "512");
    let optional = json!({
        "Given": {"Fn::If": ["HasEmail", {"Ref": "Email"}, {"Ref": "AWS::NoValue"}]},
        "Generated": {"Fn::If": ["HasEmail", {"Ref": "AWS::NoValue"}, {"Length": 32}]},
        "List": ["a", {"Fn::If": ["HasEmail", "b", {"Ref": "AWS::NoValue"}]}],
    });
    assert_eq!(
        resolver.resolve(&optional).unwrap(),
        json!({"Generated": {"Length": 32}, "List": ["a"]}),
        "AWS::NoValue leaves the property or item out"
    );
}

#[test]
fn a_reference_to_a_resource_the_stack_does_not_emulate_is_named() {
    let template = Template::parse(SAMPLE).unwrap();
    let parameters = Parameters::resolve(&template, &BTreeMap::new()).unwrap();
    let none = BTreeMap::new();
    let resolver = Resolver::new(&parameters, &Value::Null, &none, "blog");
    let error = resolver.resolve(&json!({"Fn::GetAtt": ["Topic", "Arn"]})).unwrap_err();
    assert!(format!("{error:#}").contains("Topic"), "{error:#}");
}

#[test]
fn parameters_are_checked_as_cloudformation_checks_them() {
    let template = Template::parse(SAMPLE).unwrap();
    let with = |name: &str, value: &str| {
        let overrides = BTreeMap::from([(name.to_string(), value.to_string())]);
        Parameters::resolve(&template, &overrides).map_err(|e| e.to_string())
    };
    assert_eq!(with("Level", "debug").unwrap().get("Level"), Some("debug"));
    assert!(with("Level", "loud").unwrap_err().contains("Level"));
    assert!(with("Size", "2048").unwrap_err().contains("MaxValue"));
    assert!(with("Email", "not-an-address").unwrap_err().contains("Email"));
    assert!(with("Unknown", "x").unwrap_err().contains("not declared"));
    assert_eq!(with("Size", "256").unwrap().get("Size"), Some("256"));
}

#[test]
fn rules_refuse_parameters_as_cloudformation_does() {
    let text = format!(
        "{SAMPLE}\nRules:\n  MailWithLevel:\n    RuleCondition: !Equals [!Ref Level, debug]\n    \
         Assertions:\n      - Assert: !Not [!Equals [!Ref Email, \"\"]]\n        \
         AssertDescription: Email is required in debug.\n"
    );
    let template = Template::parse(&text).unwrap();
    let with = |pairs: &[(&str, &str)]| {
        let overrides = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Parameters::resolve(&template, &overrides).unwrap().check_rules(&template)
    };
    assert!(with(&[]).is_ok(), "the rule does not apply at info");
    let refused = with(&[("Level", "debug")]).unwrap_err().to_string();
    assert!(refused.contains("Email is required in debug"), "{refused}");
    assert!(with(&[("Level", "debug"), ("Email", "a@b.c")]).is_ok());
}

#[test]
fn the_project_template_declares_twelve_functions_with_their_binaries() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../template.yaml");
    let template = Template::load(&path).unwrap();
    let functions = template.functions().unwrap();
    let binaries: Vec<&str> = functions.iter().map(|f| f.binary.as_str()).collect();
    assert_eq!(functions.len(), 12, "{binaries:?}");
    let some = ["auth", "users", "articles", "comments", "admin-comments", "worker", "ops"];
    for binary in some {
        assert!(binaries.contains(&binary), "{binary} in {binaries:?}");
    }
    let defaults = Parameters::resolve(&template, &BTreeMap::new()).expect("the defaults pass");
    defaults.check_rules(&template).expect("no rule refuses the defaults");
    let admin = BTreeMap::from([("AdminUsername".to_string(), "root".to_string())]);
    let without_email = Parameters::resolve(&template, &admin).unwrap().check_rules(&template);
    assert!(without_email.is_err(), "an administrator needs an e-mail");
    assert!(template.http_api_cors().unwrap().is_some());
}
