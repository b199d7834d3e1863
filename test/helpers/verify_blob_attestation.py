#!/usr/bin/env python3
"""A verifier of key-signed Sigstore bundles written apart from the suite (Python, OpenSSL through `cryptography`).

It does what `cosign verify-blob-attestation --key KEY --bundle BUNDLE --new-bundle-format --insecure-ignore-tlog=true
--type TYPE BLOB` does for a bundle without certificate or log entry: the DSSE signature over the pre-authentication
encoding of the envelope (DSSE v1, PAE), the in-toto statement's predicate type, and one subject whose SHA-256 is the
blob's. Usage: verify_blob_attestation.py --key KEY.pub --bundle BUNDLE --type TYPE BLOB. Exit 0 and "Verified OK",
or exit 1 and the reason.
"""
import argparse
import base64
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519


def pae(payload_type: bytes, payload: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding."""
    return b" ".join(
        [b"DSSEv1", str(len(payload_type)).encode(), payload_type, str(len(payload)).encode(), payload]
    )


def fail(why: str) -> None:
    print(f"Error: {why}")
    sys.exit(1)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--key", required=True)
    p.add_argument("--bundle", required=True)
    p.add_argument("--type", required=True)
    p.add_argument("blob")
    a = p.parse_args()
    with open(a.key, "rb") as f:
        key = serialization.load_pem_public_key(f.read())
    with open(a.bundle, "rb") as f:
        bundle = json.load(f)
    if bundle.get("mediaType") != "application/vnd.dev.sigstore.bundle.v0.3+json":
        fail(f"not a v0.3 bundle: {bundle.get('mediaType')!r}")
    env = bundle["dsseEnvelope"]
    payload = base64.b64decode(env["payload"])
    message = pae(env["payloadType"].encode(), payload)
    sigs = [base64.b64decode(s["sig"]) for s in env["signatures"]]
    if not sigs:
        fail("no signature")
    ok = False
    for sig in sigs:
        try:
            if isinstance(key, ed25519.Ed25519PublicKey):
                key.verify(sig, message)
            elif isinstance(key, ec.EllipticCurvePublicKey):
                key.verify(sig, message, ec.ECDSA(hashes.SHA256()))
            else:
                fail(f"unsupported key type {type(key).__name__}")
            ok = True
        except InvalidSignature:
            pass
    if not ok:
        fail("invalid signature when validating ASN.1 encoded signature")
    if env["payloadType"] != "application/vnd.in-toto+json":
        fail(f"payload type {env['payloadType']!r}")
    statement = json.loads(payload)
    if statement.get("predicateType") != a.type:
        fail(f"predicate type {statement.get('predicateType')!r}, not {a.type!r}")
    with open(a.blob, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if not any(s.get("digest", {}).get("sha256") == digest for s in statement.get("subject", [])):
        fail(f"no subject of the statement has the digest of {a.blob} (sha256:{digest})")
    print("Verified OK")


main()
