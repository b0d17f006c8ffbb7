"""What issue 25 asks of deploy/kubernetes, checked on the rendered manifests.

kubernetes-validate says each object is well formed for a Kubernetes version; it cannot say that
the Deployment runs as non-root, that the probes hit mcpscope's two health routes, that the
NetworkPolicy lets only the proxy in, or that an environment variable is one mcpscope reads. This
does, on the output of `kubectl kustomize` (YAML documents on stdin), and prints every broken
rule, not only the first. Also: more than one replica only with one session key from a Secret
(never inline), and a PodDisruptionBudget that lets a drain proceed one pod at a time.

    kubectl kustomize deploy/kubernetes | python scripts/manifests_policy.py docs/gateway.md [--ca]

--ca: the render includes components/private-ca, so MCP_PROXY_CA_FILE must name a file of a
mounted ConfigMap.
"""

import json
import re
import sys

import yaml

QUANTITY = re.compile(r"^[0-9]+(\.[0-9]+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$")
UID = 65532
PORT = 6280

problems = []


def need(ok, what):
    if not ok:
        problems.append(what)


def by_kind(objects, kind):
    return {o["metadata"]["name"]: o for o in objects if o.get("kind") == kind}


def pod_rules(name, dep):
    """The restricted Pod Security Standard and the rest of the issue's list, for any Deployment."""
    pod = dep["spec"]["template"]["spec"]
    psc = pod.get("securityContext", {})
    need(psc.get("runAsNonRoot") is True, f"{name}: pod securityContext.runAsNonRoot is not true")
    need(psc.get("seccompProfile", {}).get("type") == "RuntimeDefault", f"{name}: pod seccompProfile is not RuntimeDefault")
    need(pod.get("automountServiceAccountToken") is False, f"{name}: automountServiceAccountToken is not false")
    for c in pod["containers"]:
        cn = f"{name}/{c['name']}"
        sc = c.get("securityContext", {})
        need(sc.get("allowPrivilegeEscalation") is False, f"{cn}: allowPrivilegeEscalation is not false")
        need(sc.get("readOnlyRootFilesystem") is True, f"{cn}: readOnlyRootFilesystem is not true")
        need("ALL" in sc.get("capabilities", {}).get("drop", []), f"{cn}: capabilities do not drop ALL")
        need(sc.get("privileged", False) is False, f"{cn}: privileged")
        for kind in ("requests", "limits"):
            for res in ("cpu", "memory"):
                q = str(c.get("resources", {}).get(kind, {}).get(res, ""))
                need(QUANTITY.match(q) is not None, f"{cn}: resources.{kind}.{res} is {q!r}, not a quantity")
        for probe in ("livenessProbe", "readinessProbe"):
            need(probe in c, f"{cn}: no {probe}")


def mcpscope_rules(objects, dep, documented, with_ca):
    pod = dep["spec"]["template"]["spec"]
    c = next(c for c in pod["containers"] if c["name"] == "mcpscope")
    psc = pod.get("securityContext", {})
    need(psc.get("runAsUser") == UID, f"mcpscope: runAsUser is {psc.get('runAsUser')}, not {UID} (the image's user)")
    need(pod.get("enableServiceLinks") is False, "mcpscope: enableServiceLinks is not false (MCPSCOPE_*_PORT variables)")
    args = c.get("args", [])
    need(args[:1] == ["gateway"], f"mcpscope: args do not start with the gateway mode: {args}")
    need("--config" in args and args[args.index("--config") + 1] == "/etc/mcpscope/gateways.json",
         "mcpscope: --config is not /etc/mcpscope/gateways.json")
    need(c["livenessProbe"].get("httpGet", {}).get("path") == "/healthz", "mcpscope: liveness is not GET /healthz")
    need(c["readinessProbe"].get("httpGet", {}).get("path") == "/readyz", "mcpscope: readiness is not GET /readyz")
    ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
    need(ports.get("http") == PORT, f"mcpscope: container port http is not {PORT}")

    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    for var in env:
        need(var in documented, f"mcpscope: env {var} is not one docs/gateway.md names")
    need(bool(env.get("MCPSCOPE_GATEWAY_TRUSTED_PROXIES")), "mcpscope: no trusted proxies (binding beyond loopback needs a guard)")
    need(("MCP_PROXY_CA_FILE" in env) == with_ca, f"mcpscope: MCP_PROXY_CA_FILE {'missing' if with_ca else 'set'} (components/private-ca)")
    need("MCP_PROXY_ALLOW_INSECURE_AUTH" not in env and "MCP_PROXY_DIAL_ADDRESS" not in env,
         "mcpscope: a development-only variable is set")

    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
    maps = by_kind(objects, "ConfigMap")
    for path in ("/etc/mcpscope", "/tmp"):
        need(path in mounts, f"mcpscope: nothing mounted at {path}")
    need("subPath" not in mounts.get("/etc/mcpscope", {}), "mcpscope: the gateways file is a subPath (never updated in place)")
    cm = volumes.get(mounts.get("/etc/mcpscope", {}).get("name"), {}).get("configMap", {}).get("name")
    gateways = maps.get(cm, {}).get("data", {}).get("gateways.json")
    need(gateways is not None, f"mcpscope: /etc/mcpscope is not a ConfigMap holding gateways.json ({cm})")
    if gateways is not None:
        doc = json.loads(gateways)
        need(all(g.get("url", "").startswith("https://") for g in doc.get("gateways", {}).values()) and doc.get("gateways"),
             "mcpscope: gateways.json names no gateway, or one without an https:// url")
    need("emptyDir" in volumes.get(mounts.get("/tmp", {}).get("name"), {}), "mcpscope: /tmp is not an emptyDir")
    if with_ca:
        ca = env.get("MCP_PROXY_CA_FILE", "")
        mount = next((m for p, m in mounts.items() if ca.startswith(p + "/")), None)
        vol = volumes.get(mount["name"] if mount else None, {}).get("configMap", {}).get("name")
        key = ca.rsplit("/", 1)[-1]
        need("BEGIN CERTIFICATE" in maps.get(vol, {}).get("data", {}).get(key, ""),
             f"mcpscope: MCP_PROXY_CA_FILE={ca} is not a PEM in a mounted ConfigMap")


def session_key_rules(objects, dep):
    """Replicas accept each other's sessions only with one key (docs/gateway.md "Sessions"): from
    a Secret, as a secretKeyRef or a file of a mounted Secret, never a value in the manifest."""
    pod = dep["spec"]["template"]["spec"]
    c = next(c for c in pod["containers"] if c["name"] == "mcpscope")
    env = {e["name"]: e for e in c.get("env", [])}
    key, key_file = env.get("MCPSCOPE_GATEWAY_SESSION_KEY"), env.get("MCPSCOPE_GATEWAY_SESSION_KEY_FILE")
    replicas = dep["spec"].get("replicas", 1)
    need(not (key and key_file), "mcpscope: both MCPSCOPE_GATEWAY_SESSION_KEY and its _FILE are set")
    if key:
        need("value" not in key and "secretKeyRef" in key.get("valueFrom", {}),
             "mcpscope: MCPSCOPE_GATEWAY_SESSION_KEY is not from a Secret (secretKeyRef); a key never sits in a manifest")
        need(key.get("valueFrom", {}).get("secretKeyRef", {}).get("optional") is not True,
             "mcpscope: the session key's Secret is optional (replicas would each make their own key)")
    if key_file:
        path = key_file.get("value", "")
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        mount = next((m for m in c.get("volumeMounts", []) if path.startswith(m["mountPath"] + "/")), None)
        need(mount is not None and "secret" in volumes.get(mount["name"], {}),
             f"mcpscope: MCPSCOPE_GATEWAY_SESSION_KEY_FILE={path} is not a file of a mounted Secret")
    if replicas > 1:
        need(bool(key or key_file), f"mcpscope: {replicas} replicas without MCPSCOPE_GATEWAY_SESSION_KEY: each would refuse the others' sessions")
        labels = dep["spec"]["template"]["metadata"]["labels"]
        pdbs = [p for p in by_kind(objects, "PodDisruptionBudget").values()
                if all(labels.get(k) == v for k, v in p["spec"]["selector"].get("matchLabels", {}).items())]
        need(len(pdbs) == 1, "mcpscope: several replicas and no PodDisruptionBudget selecting them")
        for p in pdbs:
            low = p["spec"].get("minAvailable")
            need(isinstance(low, int) and 1 <= low < replicas,
                 f"mcpscope: the PodDisruptionBudget's minAvailable is {low!r}: keep one up and let a drain evict one ({replicas} replicas)")


GO_DURATION = re.compile(r"([0-9]+(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)")
GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def go_seconds(text):
    """A Go duration (`5s`, `1m30s`, `0`) in seconds, or None when it is not one."""
    if text == "0":
        return 0.0
    parts = GO_DURATION.findall(text or "")
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * GO_UNITS[u] for n, u in parts)


def stop_rules(dep):
    """A stop ends before Kubernetes kills (docs/gateway.md "Stopping"): SIGKILL comes
    terminationGracePeriodSeconds after SIGTERM, so the delay and the grace, with 2 s for the
    last connections to close, must fit inside it."""
    pod = dep["spec"]["template"]["spec"]
    c = next(c for c in pod["containers"] if c["name"] == "mcpscope")
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    delay = go_seconds(env.get("MCPSCOPE_SHUTDOWN_DELAY", "0s"))
    grace = go_seconds(env.get("MCPSCOPE_SHUTDOWN_GRACE", "20s"))
    need(delay is not None, f"mcpscope: MCPSCOPE_SHUTDOWN_DELAY={env.get('MCPSCOPE_SHUTDOWN_DELAY')!r} is not a Go duration")
    need(grace is not None, f"mcpscope: MCPSCOPE_SHUTDOWN_GRACE={env.get('MCPSCOPE_SHUTDOWN_GRACE')!r} is not a Go duration")
    period = pod.get("terminationGracePeriodSeconds", 30)
    if delay is not None and grace is not None:
        need(delay + grace + 2 <= period,
             f"mcpscope: a stop takes up to {delay:g} s + {grace:g} s (+2 s), past terminationGracePeriodSeconds {period}: calls in progress would be killed")


def service_rules(objects, dep):
    svc = by_kind(objects, "Service").get("mcpscope")
    need(svc is not None, "no Service mcpscope")
    if svc:
        labels = dep["spec"]["template"]["metadata"]["labels"]
        need(all(labels.get(k) == v for k, v in svc["spec"]["selector"].items()), "Service mcpscope does not select mcpscope's pods")
        need(any(p["port"] == PORT for p in svc["spec"]["ports"]), f"Service mcpscope has no port {PORT}")


def network_rules(objects, deps):
    pols = [p for p in by_kind(objects, "NetworkPolicy").values()
            if p["spec"]["podSelector"].get("matchLabels", {}).get("app.kubernetes.io/name") == "mcpscope"]
    need(len(pols) == 1, "no NetworkPolicy selects mcpscope's pods")
    if not pols:
        return
    spec = pols[0]["spec"]
    need(sorted(spec.get("policyTypes", [])) == ["Egress", "Ingress"], "NetworkPolicy: not both Ingress and Egress")
    peers = [f for rule in spec.get("ingress", []) for f in rule.get("from", [])]
    need(bool(peers), "NetworkPolicy: ingress from anyone")
    proxy_labels = deps.get("oauth2-proxy", {}).get("spec", {}).get("template", {}).get("metadata", {}).get("labels", {})
    for f in peers:
        sel = f.get("podSelector", {}).get("matchLabels")
        need(set(f) == {"podSelector"} and sel and all(proxy_labels.get(k) == v for k, v in sel.items()),
             f"NetworkPolicy: ingress from something other than the proxy's pods: {f}")
    ports = {p.get("port") for rule in spec.get("egress", []) for p in rule.get("ports", [])}
    need(53 in ports, "NetworkPolicy: no egress to DNS")
    need(all(rule.get("ports") for rule in spec.get("egress", [])), "NetworkPolicy: an egress rule open on every port")


def proxy_rules(deps, mcpscope_env):
    dep = deps.get("oauth2-proxy")
    need(dep is not None, "no oauth2-proxy Deployment")
    if not dep:
        return
    args = dep["spec"]["template"]["spec"]["containers"][0].get("args", [])
    need(f"--upstream=http://mcpscope:{PORT}/" in args, "oauth2-proxy: upstream is not the mcpscope Service")
    need("--pass-user-headers=true" in args, "oauth2-proxy: does not pass X-Forwarded-User / X-Forwarded-Groups")
    need(mcpscope_env.get("MCPSCOPE_GATEWAY_USER_HEADER", "X-Forwarded-User") == "X-Forwarded-User",
         "mcpscope reads another user header than oauth2-proxy sends")
    need(mcpscope_env.get("MCPSCOPE_GATEWAY_GROUPS_HEADER", "X-Forwarded-Groups") == "X-Forwarded-Groups",
         "mcpscope reads another groups header than oauth2-proxy sends")


def main():
    documented = set(re.findall(r"`((?:MCP|MCPSCOPE|INSPECTOR)_[A-Z_]+|ALLOWED_ORIGINS|HOST)`", open(sys.argv[1]).read()))
    with_ca = "--ca" in sys.argv[2:]
    objects = [o for o in yaml.safe_load_all(sys.stdin) if o]
    deps = by_kind(objects, "Deployment")
    for name, dep in deps.items():
        pod_rules(name, dep)
    dep = deps.get("mcpscope")
    need(dep is not None, "no Deployment mcpscope")
    if dep:
        mcpscope_rules(objects, dep, documented, with_ca)
        stop_rules(dep)
        session_key_rules(objects, dep)
        service_rules(objects, dep)
        env = {e["name"]: e.get("value") for e in dep["spec"]["template"]["spec"]["containers"][0].get("env", [])}
        proxy_rules(deps, env)
    network_rules(objects, deps)
    for p in problems:
        print(f"policy: {p}")
    kinds = sorted(f"{o['kind']}/{o['metadata']['name']}" for o in objects)
    print(f"policy: {len(objects)} objects ({', '.join(kinds)}): {'ok' if not problems else f'{len(problems)} broken'}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
