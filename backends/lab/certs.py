"""A lab cluster's own certificate authority and its brokers' certificates, as PEM (Kafka reads PEM stores since 2.7).

The CA is made once per lab and trusted by nothing else; each broker's certificate names 127.0.0.1 and localhost,
where a lab's listeners bind, so clients keep checking the host name (ssl.endpoint.identification.algorithm=https).
"""

from __future__ import annotations

import datetime
import ipaddress

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

HOSTS = ("127.0.0.1", "localhost")
_VALID = datetime.timedelta(days=825)  # the longest a TLS server certificate may live for common clients


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)  # clocks a little behind still accept


def key_pem(key: ec.EllipticCurvePrivateKey, password: str | None = None) -> bytes:
    """PKCS#8 PEM, encrypted with `password` when one is given."""
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(password.encode()) if password else serialization.NoEncryption()
    )
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


def cert_pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def new_ca(name: str) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """A self-signed CA for lab `name`: it may sign server certificates, nothing below them."""
    key = _key()
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "kafkatop"),
            x509.NameAttribute(NameOID.COMMON_NAME, f"{name} CA"),
        ]
    )
    start = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + _VALID)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return key, cert


def new_server_cert(
    ca_key: ec.EllipticCurvePrivateKey, ca_cert: x509.Certificate, common_name: str
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """A broker's key and certificate, signed by the lab's CA, for 127.0.0.1 and localhost."""
    key = _key()
    start = _now()
    names: list[x509.GeneralName] = [x509.IPAddress(ipaddress.ip_address(HOSTS[0])), x509.DNSName(HOSTS[1])]
    cert = (
        x509.CertificateBuilder()
        .subject_name(
            x509.Name(
                [
                    x509.NameAttribute(NameOID.ORGANIZATION_NAME, "kafkatop"),
                    x509.NameAttribute(NameOID.COMMON_NAME, common_name),
                ]
            )
        )
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + _VALID)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    return key, cert


def load_ca(key_pem_bytes: bytes, cert_pem_bytes: bytes) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = serialization.load_pem_private_key(key_pem_bytes, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError("the lab's CA key is not an EC key")
    return key, x509.load_pem_x509_certificate(cert_pem_bytes)
