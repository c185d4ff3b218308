"""A client of askuser serve's agent API, with the standard library only.

askuser lets an AI agent ask a person 1-4 structured questions and get back
an answer that says who decided: the person, the deadline, or nobody.
``askuser serve`` runs it as a service; this package posts the agent's tool
calls to it and reads their results::

    from askuser_client import Client

    client = Client("http://127.0.0.1:8080", token=open(token_file).read().strip())
    result = client.call(session="run-42", tool_call_id=call.id, arguments=call.arguments)
    # result is the tool result text, exactly what to give the model

and checks the signature of its webhooks with :func:`verify_webhook`.
"""

from .client import (
    AskuserError,
    CallRefused,
    Client,
    Pending,
    ServiceError,
)
from .webhook import (
    ID_HEADER,
    SIGNATURE_HEADER,
    TOLERANCE_SECONDS,
    WebhookError,
    sign_webhook,
    verify_webhook,
)

__all__ = [
    "AskuserError",
    "CallRefused",
    "Client",
    "Pending",
    "ServiceError",
    "ID_HEADER",
    "SIGNATURE_HEADER",
    "TOLERANCE_SECONDS",
    "WebhookError",
    "sign_webhook",
    "verify_webhook",
]
