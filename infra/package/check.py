"""Package check: runs every x86_64 release package the way Lambda runs it, and checks answers.

Starts `cargo lambda watch --only-lambda-apis` (the Lambda Runtime API emulator) and each
function's `bootstrap` from target/lambda/x86_64/<function>/ with AWS_LAMBDA_RUNTIME_API pointing
at it, invokes it with samples of events/ through the emulator's Invoke API, and checks the
status code and envelope of each answer. The functions run on the emulators of
infra/emulators/with-emulators.sh (DynamoDB Local, SQS on moto, S3 on s3s-fs): run it through
that script (`make package-check`). Also checks that every arm64 package is an AArch64 ELF.

Prints, per function: the time from exec to the first answer (cold start plus one request) and
the CPU time it took, the median wall and CPU time of a warm invocation (one read event, five
times), and the peak resident memory (VmHWM) after all of its requests. On this machine, with
the emulators on loopback: the figures the template's MemorySize and Timeout are chosen from.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import boto3
from botocore.config import Config

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
LAMBDA_DIR = ROOT / "target" / "lambda"
FUNCTIONS = ("auth users categories tags articles admin-articles comments admin-comments files ops worker "
             "outbox-sweep").split()
ADMIN = ("admin", "Admin12345", "admin@example.com")
ACTUATOR_TOKEN = "package-check-actuator-token"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ms(pid):
    """CPU time of every thread of `pid` so far (schedstat: nanoseconds on a CPU)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total / 1e6


def median(values):
    values = sorted(values)
    return values[len(values) // 2] if values else float("nan")


def wait_for_port(port, process, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"[package-check] cargo lambda watch exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"[package-check] nothing listens on port {port} after {seconds}s")


class Check:
    """The emulators, the Runtime API emulator and the running functions."""

    def __init__(self):
        self.failures = []
        self.values = {}
        self.started = {}
        self.figures = {}
        self.port = free_port()
        env = dict(os.environ, PATH=f"{ROOT}/.tools/venv/bin:{os.environ['PATH']}")
        self.watch = subprocess.Popen(
            ["cargo", "lambda", "watch", "--only-lambda-apis", "--invoke-address", "127.0.0.1",
             "--invoke-port", str(self.port)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.watch)
        self.env = self.function_env()
        self.processes = {}

    def function_env(self):
        """What the template gives every function, on the emulators."""
        aws = dict(region_name="us-east-1", aws_access_key_id="test",
                   aws_secret_access_key="test")
        sqs = boto3.client("sqs", endpoint_url=os.environ["BLOG_TEST_SQS_ENDPOINT"], **aws)
        queue = sqs.create_queue(QueueName=f"package-check-{uuid.uuid4().hex}")["QueueUrl"]
        s3 = boto3.client("s3", endpoint_url=os.environ["BLOG_TEST_S3_ENDPOINT"],
                          config=Config(s3={"addressing_style": "path"}), **aws)
        bucket = f"package-check-{uuid.uuid4().hex[:16]}"
        s3.create_bucket(Bucket=bucket)
        return {
            "PATH": "/usr/bin:/bin",
            "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "test",
            "AWS_SECRET_ACCESS_KEY": "test",
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "128",
            "BLOG_STORE": "dynamodb",
            "BLOG_TABLE_NAME": f"package-check-{uuid.uuid4().hex}",
            "BLOG_DYNAMODB_ENDPOINT": os.environ["BLOG_TEST_DYNAMODB_ENDPOINT"],
            "BLOG_DYNAMODB_CREATE_TABLE": "true",
            "BLOG_JWT_SECRET": "package-check-secret-package-check-secret",
            "BLOG_ADMIN_USERNAME": ADMIN[0],
            "BLOG_ADMIN_PASSWORD": ADMIN[1],
            "BLOG_ADMIN_EMAIL": ADMIN[2],
            # The ops function refuses to start without the actuator's token.
            "BLOG_ACTUATOR_TOKEN": ACTUATOR_TOKEN,
            "BLOG_EVENTS_QUEUE_URL": queue,
            "BLOG_SQS_ENDPOINT": os.environ["BLOG_TEST_SQS_ENDPOINT"],
            "BLOG_BUCKET_NAME": bucket,
            "BLOG_S3_ENDPOINT": os.environ["BLOG_TEST_S3_ENDPOINT"],
            "BLOG_EMBEDDER": "local",
            "BLOG_LOG": "warn",
            # As the template's default TrustStore=aws.
            "BLOG_AWS_TRUST_STORE": "aws",
        }

    def start(self, function):
        bootstrap = LAMBDA_DIR / "x86_64" / function / "bootstrap"
        env = dict(self.env, AWS_LAMBDA_FUNCTION_NAME=function,
                   AWS_LAMBDA_RUNTIME_API=f"http://127.0.0.1:{self.port}/.rt/{function}")
        LAMBDA_DIR.mkdir(parents=True, exist_ok=True)
        log = open(LAMBDA_DIR / f"check-{function}.log", "w")
        self.started[function] = time.monotonic()
        self.processes[function] = subprocess.Popen(
            [str(bootstrap)], env=env, stdout=log, stderr=subprocess.STDOUT)

    def event(self, path, **values):
        text = (EVENTS / path).read_text()
        for name, value in {**self.values, **values}.items():
            text = text.replace("{{" + name + "}}", str(value))
        return text

    def invoke(self, function, payload):
        if function not in self.processes:
            self.start(function)
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/2015-03-31/functions/{function}/invocations",
            data=payload.encode(), method="POST", headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            answer = json.loads(response.read())
        if function not in self.figures:
            self.figures[function] = {
                "first_ms": (time.monotonic() - self.started[function]) * 1000,
                "first_cpu_ms": cpu_ms(self.processes[function].pid),
                "warm": [],
            }
        return answer

    def warm(self, function, path, times=5):
        """Invokes a read `times` more times; keeps each one's wall and CPU milliseconds."""
        payload = self.event(path)
        pid = self.processes[function].pid
        for _ in range(times):
            cpu, started = cpu_ms(pid), time.monotonic()
            self.invoke(function, payload)
            wall = (time.monotonic() - started) * 1000
            self.figures[function]["warm"].append((wall, cpu_ms(pid) - cpu))

    def http(self, function, path, status, field, value):
        """Invokes `function` with events/`path`; checks the HTTP API response envelope
        (statusCode, headers, a JSON body) and that the body's `field` is `value`."""
        answer = self.invoke(function, self.event(path))
        body = json.loads(answer.get("body") or "null")
        got = (answer.get("statusCode"), body.get(field) if isinstance(body, dict) else None)
        ok = got == (status, value) and isinstance(answer.get("headers"), dict)
        print(f"[package-check] {'ok  ' if ok else 'FAIL'} {function:15} {path:32} "
              f"statusCode {got[0]}, {field} {got[1]!r}")
        if not ok:
            self.failures.append(f"{function} {path}: {answer}")
        return body

    def peak_memory(self):
        for function, process in self.processes.items():
            status = Path(f"/proc/{process.pid}/status").read_text()
            kib = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))
            self.figures[function]["peak_kib"] = kib

    def stop(self):
        for process in [*self.processes.values(), self.watch]:
            process.terminate()
        for process in [*self.processes.values(), self.watch]:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def admin_login(check):
    event = json.loads(check.event("auth/login.json"))
    event["body"] = json.dumps({"username": ADMIN[0], "password": ADMIN[1]})
    event["headers"]["content-length"] = str(len(event["body"]))
    answer = check.invoke("auth", json.dumps(event))
    return json.loads(answer["body"])["data"]["token"]


def run(check):
    check.values["ACTUATOR_TOKEN"] = ACTUATOR_TOKEN
    check.http("auth", "auth/register.json", 200, "code", 0)
    login = check.http("auth", "auth/login.json", 200, "code", 0)
    check.values["USER_TOKEN"] = login["data"]["token"]
    check.values["ADMIN_TOKEN"] = admin_login(check)
    check.http("users", "users/get-me.json", 200, "code", 0)
    created = check.http("categories", "categories/create.json", 200, "code", "200")
    check.values["CATEGORY_ID"] = created["data"]["id"]
    check.http("categories", "categories/tree.json", 200, "code", "200")
    check.http("tags", "tags/hot.json", 200, "code", "200")
    article = check.http("admin-articles", "admin-articles/create.json", 200, "code", 200)
    check.values["ARTICLE_ID"] = article["data"]
    check.http("admin-articles", "admin-articles/publish.json", 200, "code", 200)
    check.http("articles", "articles/detail.json", 200, "code", 200)
    check.http("articles", "articles/related.json", 200, "code", 200)
    check.http("comments", "comments/create.json", 200, "code", 200)
    check.http("admin-comments", "admin-comments/list.json", 200, "code", 200)
    presigned = check.http("files", "files/presigned.json", 200, "code", 0)
    check.values["FILE_ID"] = presigned["data"]["fileId"]
    check.http("files", "files/metadata.json", 200, "code", 0)
    check.http("ops", "ops/health.json", 200, "status", "UP")
    check.http("ops", "ops/unknown-route.json", 404, "code", 404)
    batch = check.invoke("worker", check.event("worker/sqs-batch.json"))
    failures = [f["itemIdentifier"] for f in batch.get("batchItemFailures", [])]
    poison = json.loads(check.event("worker/sqs-batch.json"))["Records"][1]["messageId"]
    ok = failures == [poison]
    print(f"[package-check] {'ok  ' if ok else 'FAIL'} {'worker':15} {'worker/sqs-batch.json':32} "
          f"batchItemFailures={failures}")
    if not ok:
        check.failures.append(f"worker sqs-batch: {batch}")
    # The publish above sent its event, so the outbox holds nothing to re-send.
    sweep = check.invoke("outbox-sweep", check.event("outbox-sweep/scheduled.json"))
    ok = sweep == {"delivered": 0}
    print(f"[package-check] {'ok  ' if ok else 'FAIL'} {'outbox-sweep':15} "
          f"{'outbox-sweep/scheduled.json':32} {sweep}")
    if not ok:
        check.failures.append(f"outbox-sweep scheduled: {sweep}")
    warm_reads = [
        ("auth", "auth/login.json"), ("users", "users/get-me.json"),
        ("categories", "categories/tree.json"), ("tags", "tags/hot.json"),
        ("articles", "articles/detail.json"), ("admin-articles", "admin-articles/list.json"),
        ("comments", "comments/tree.json"), ("admin-comments", "admin-comments/list.json"),
        ("files", "files/metadata.json"), ("ops", "ops/health.json"),
        ("worker", "worker/sqs-batch.json"), ("outbox-sweep", "outbox-sweep/scheduled.json"),
    ]
    for function, path in warm_reads:
        check.warm(function, path)


def arm64_packages_are_aarch64(check):
    for function in FUNCTIONS:
        bootstrap = LAMBDA_DIR / "arm64" / function / "bootstrap"
        if not bootstrap.exists():
            print(f"[package-check] skip {function:15} no arm64 package")
            continue
        header = bootstrap.read_bytes()[:20]
        machine = int.from_bytes(header[18:20], "little")
        ok = header[:4] == b"\x7fELF" and machine == 183  # EM_AARCH64
        print(f"[package-check] {'ok  ' if ok else 'FAIL'} {function:15} arm64 ELF machine {machine}")
        if not ok:
            check.failures.append(f"{bootstrap} is not an AArch64 executable")


def main():
    missing = [f for f in FUNCTIONS if not (LAMBDA_DIR / "x86_64" / f / "bootstrap").exists()]
    if missing:
        sys.exit(f"[package-check] no x86_64 package of {missing}: run `make package-x86_64`")
    check = Check()
    try:
        run(check)
        check.peak_memory()
        arm64_packages_are_aarch64(check)
    except (urllib.error.URLError, KeyError, TypeError, ValueError) as error:
        check.failures.append(f"{type(error).__name__}: {error}")
    finally:
        check.stop()
    print("[package-check] function        first answer (CPU)    warm median (CPU)   peak RSS")
    for function, figures in sorted(check.figures.items()):
        peak = figures.get("peak_kib")
        peak = f"{peak / 1024:5.1f} MiB" if peak else "-"
        walls = [wall for wall, _ in figures["warm"]]
        cpus = [cpu for _, cpu in figures["warm"]]
        print(f"[package-check] {function:15} {figures['first_ms']:6.0f} ms ({figures['first_cpu_ms']:4.0f} ms)"
              f"  {median(walls):6.1f} ms ({median(cpus):5.1f} ms)  {peak}")
    for failure in check.failures:
        print(f"[package-check] failure: {failure}", file=sys.stderr)
    print(f"[package-check] {'FAILED' if check.failures else 'passed'}; "
          f"logs in target/lambda/check-<function>.log")
    sys.exit(1 if check.failures else 0)


if __name__ == "__main__":
    main()
