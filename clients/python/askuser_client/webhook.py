"""Checking the signature of askuser serve's webhook deliveries."""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Optional, Union

SIGNATURE_HEADER = "Askuser-Signature"
"""The header carrying ``t=<unix seconds>,v1=<hex HMAC-SHA256>``."""

ID_HEADER = "Askuser-Webhook-Id"
"""The header carrying the ask id, the same on every try of one delivery."""

TOLERANCE_SECONDS = 300
"""How far a delivery's timestamp may be from this clock: five minutes."""

MIN_SECRET_BYTES = 16


class WebhookError(ValueError):
    """A delivery whose signature does not verify, or is too old."""


def _key(secret: Union[bytes, str]) -> bytes:
    key = secret.encode() if isinstance(secret, str) else bytes(secret)
    if len(key) < MIN_SECRET_BYTES:
        raise WebhookError(f"the secret is {len(key)} bytes; at least {MIN_SECRET_BYTES} are needed")
    return key


def _mac(key: bytes, ts: str, body: bytes) -> bytes:
    return hmac.new(key, ts.encode() + b"." + body, hashlib.sha256).digest()


def sign_webhook(secret: Union[bytes, str], body: bytes, timestamp: int) -> str:
    """Return the Askuser-Signature value of ``body`` sent at ``timestamp``."""
    ts = str(int(timestamp))
    return f"t={ts},v1={_mac(_key(secret), ts, body).hex()}"


def verify_webhook(
    secret: Union[bytes, str],
    header: Optional[str],
    body: bytes,
    *,
    now: Optional[float] = None,
    tolerance: int = TOLERANCE_SECONDS,
) -> None:
    """Check that ``header`` (the Askuser-Signature value) signs ``body``.

    ``body`` is the raw request body, before any JSON decoding. Raises
    :class:`WebhookError` saying what is wrong; returns None when the
    delivery is askuser's and its timestamp is within ``tolerance`` seconds
    of ``now`` (default: the clock). One matching ``v1`` signature of several
    is enough (while a secret is rotated).
    """
    key = _key(secret)
    if not header:
        raise WebhookError(f"no {SIGNATURE_HEADER} header")
    if len(header) > 4096:
        raise WebhookError("the signature header is longer than 4096 bytes")
    ts: Optional[str] = None
    sigs = []
    for field in header.split(","):
        k, sep, v = field.strip().partition("=")
        if not sep:
            raise WebhookError(f"{field!r} is not key=value (want t=<unix seconds>,v1=<hex>)")
        if k == "t":
            if ts is not None:
                raise WebhookError("the header has two timestamps")
            ts = v
        elif k == "v1":
            try:
                sig = bytes.fromhex(v)
            except ValueError:
                sig = b""
            if len(sig) != 32:
                raise WebhookError("a v1 signature is not 32 hex bytes")
            sigs.append(sig)
    if ts is None or not sigs:
        raise WebhookError("the header needs t=<unix seconds> and v1=<hex>")
    if not ts.isdigit() or ts.startswith("0"):
        raise WebhookError(f"the timestamp {ts!r} is not unix seconds")
    want = _mac(key, ts, body)
    ok = False
    for sig in sigs:
        ok = hmac.compare_digest(sig, want) or ok
    if not ok:
        raise WebhookError("the signature does not match")
    skew = (time.time() if now is None else now) - int(ts)
    if abs(skew) > tolerance:
        raise WebhookError(f"the timestamp is {abs(skew):.0f}s from this clock; at most {tolerance}s is taken")
