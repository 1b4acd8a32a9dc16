"""Java key stores in the form librdkafka reads: a truststore's CA certificates, a keystore's key and certificate
chain, as PEM.

PEM files are handed over by location (checked first, so a wrong file or password is said here, in one line). PKCS12
is read with `cryptography`. JKS (and JCEKS) has no maintained Python reader (pyjks, the one library, saw its last
release in 2020), so the JDK that runs Kafka converts it: `keytool -importkeystore` to a PKCS12 file in a private
temporary directory (0700, deleted at once), its passwords handed over in the environment, never on a command line.
Nothing here quotes a password.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from kafkatop.backends.model.client_properties import ClientPropertiesError, StoreRef
from kafkatop.backends.model.errors import unreadable

_JKS_MAGIC = (b"\xfe\xed\xfe\xed", b"\xce\xce\xce\xce")  # JKS, JCEKS
_KEYTOOL_TIMEOUT_S = 60.0


def store_settings(store: StoreRef) -> dict[str, str]:
    """librdkafka settings for a truststore (ssl.ca.*) or a keystore (ssl.certificate.*, ssl.key.*)."""
    what = f"ssl.{store.role}.location {store.location}"
    data = _read(store, what)
    if b"-----BEGIN" in data[:4096] or store.type == "PEM":
        return _pem(store, data, what)
    if data[:4] in _JKS_MAGIC:
        data = _jks_to_pkcs12(store, what)
        store = StoreRef(store.role, store.location, "PKCS12", _TEMP_PASSWORD, _TEMP_PASSWORD)
    return _pkcs12(store, data, what)


def _read(store: StoreRef, what: str) -> bytes:
    try:
        return Path(store.location).expanduser().read_bytes()
    except OSError as e:
        raise ClientPropertiesError(f"{what}: {unreadable(e, 'a directory, not a key store')}") from None


def _pem(store: StoreRef, data: bytes, what: str) -> dict[str, str]:
    location = str(Path(store.location).expanduser())
    try:
        x509.load_pem_x509_certificates(data)
    except ValueError:
        raise ClientPropertiesError(f"{what}: no PEM certificate in it") from None
    if store.role == "truststore":
        return {"ssl.ca.location": location}
    if b"PRIVATE KEY-----" not in data:
        raise ClientPropertiesError(f"{what}: no private key in this PEM keystore")
    password = store.key_password or store.password
    try:
        serialization.load_pem_private_key(data, password.encode() if password else None)
    except TypeError:  # encrypted without a password given, or a password for a key that is not encrypted
        raise ClientPropertiesError(
            f"{what}: the private key is encrypted: give ssl.key.password"
            if not password
            else f"{what}: the private key is not encrypted: leave out ssl.key.password"
        ) from None
    except ValueError:
        raise ClientPropertiesError(f"{what}: wrong ssl.key.password, or a private key that cannot be read") from None
    settings = {"ssl.certificate.location": location, "ssl.key.location": location}
    if password:
        settings["ssl.key.password"] = password
    return settings


def _pkcs12(store: StoreRef, data: bytes, what: str) -> dict[str, str]:
    loaded = None
    tried: list[str | None] = [p for p in (store.password, store.key_password) if p] or [None]
    for password in dict.fromkeys(tried):
        try:
            loaded = pkcs12.load_pkcs12(data, password.encode() if password else None)
            break
        except ValueError:
            continue
    if loaded is None:
        raise ClientPropertiesError(f"{what}: wrong ssl.{store.role}.password, or not a PKCS12 or JKS store")
    certs = [c.certificate for c in ([loaded.cert] if loaded.cert else []) + list(loaded.additional_certs)]
    pems = "".join(c.public_bytes(serialization.Encoding.PEM).decode("ascii") for c in certs)
    if store.role == "truststore":
        if not pems:
            raise ClientPropertiesError(f"{what}: holds no certificate to trust")
        return {"ssl.ca.pem": pems}
    if loaded.key is None or not pems:
        raise ClientPropertiesError(f"{what}: holds no private key with its certificate")
    key = loaded.key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return {"ssl.key.pem": key.decode("ascii"), "ssl.certificate.pem": pems}


# --- JKS, through the JDK's keytool --------------------------------------------------------------------------------
_TEMP_PASSWORD = "kafkatop-temporary"  # protects nothing: the PKCS12 copy lives a moment in a 0700 directory


def keytool() -> str:
    """The JDK's keytool: $JAVA_HOME/bin, PATH, or beside the `java` on PATH."""
    java_home = os.environ.get("JAVA_HOME")
    candidates = [str(Path(java_home) / "bin" / "keytool")] if java_home else []
    candidates.append(shutil.which("keytool") or "")
    java = shutil.which("java")
    if java:
        candidates.append(str(Path(os.path.realpath(java)).parent / "keytool"))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    raise ClientPropertiesError("a JKS store needs the JDK's keytool to be read, and none was found (JAVA_HOME, PATH)")


def _jks_to_pkcs12(store: StoreRef, what: str) -> bytes:
    with tempfile.TemporaryDirectory(prefix="kafkatop-store-") as tmp:  # mkdtemp: 0700
        target = Path(tmp) / "store.p12"
        env = dict(os.environ)
        env["KAFKATOP_SRC_PASS"] = store.password or ""
        env["KAFKATOP_DEST_PASS"] = _TEMP_PASSWORD
        cmd = [
            keytool(),
            "-importkeystore",
            "-noprompt",
            "-srckeystore",
            str(Path(store.location).expanduser()),
            "-srcstorepass:env",
            "KAFKATOP_SRC_PASS",
            "-destkeystore",
            str(target),
            "-deststoretype",
            "PKCS12",
            "-deststorepass:env",
            "KAFKATOP_DEST_PASS",
        ]
        if store.key_password and store.key_password != store.password:
            alias = _key_alias(store, env)
            env["KAFKATOP_KEY_PASS"] = store.key_password
            cmd += [
                "-srcalias",
                alias,
                "-srckeypass:env",
                "KAFKATOP_KEY_PASS",
                "-destkeypass:env",
                "KAFKATOP_DEST_PASS",
            ]
        out = _run(cmd, env, store, what)
        if not target.exists():
            raise ClientPropertiesError(f"{what}: keytool could not convert it ({_first_error(out)})")
        return target.read_bytes()


def _key_alias(store: StoreRef, env: dict[str, str]) -> str:
    """The alias of the keystore's private key entry (keytool needs it to take a key password of its own)."""
    what = f"ssl.keystore.location {store.location}"
    cmd = [
        keytool(),
        "-list",
        "-keystore",
        str(Path(store.location).expanduser()),
        "-storepass:env",
        "KAFKATOP_SRC_PASS",
    ]
    out = _run(cmd, env, store, what)
    for line in out.splitlines():
        if "PrivateKeyEntry" in line:
            return line.split(",", 1)[0].strip()
    raise ClientPropertiesError(f"{what}: holds no private key entry")


def _run(cmd: list[str], env: dict[str, str], store: StoreRef, what: str) -> str:
    try:
        proc = subprocess.run(
            cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=_KEYTOOL_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ClientPropertiesError(f"{what}: keytool failed ({type(e).__name__})") from None
    out = (proc.stdout + proc.stderr).decode("utf-8", errors="replace")
    if proc.returncode != 0:
        if "password was incorrect" in out.lower() or "password verification failed" in out.lower():
            raise ClientPropertiesError(f"{what}: wrong ssl.{store.role}.password")
        raise ClientPropertiesError(f"{what}: keytool could not read it ({_first_error(out)})")
    return out


def _first_error(out: str) -> str:
    for line in out.splitlines():
        if "error" in line.lower():
            return line.replace("keytool error: ", "").strip()[:200]
    return out.strip().splitlines()[0][:200] if out.strip() else "no output"
