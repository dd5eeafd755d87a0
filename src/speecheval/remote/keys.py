"""Where a remote model is and the key it is asked with: both checked before a run starts.

The key lives in an environment variable the user names (``--api-key-env``,
``judge.api_key_env``), never on the command line or in a file the run writes, and the
base URL is recorded in the run's files, so it must not carry a secret either.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from ..core.errors import InputError

NOT_HTTP = "must be an http(s) URL such as http://127.0.0.1:8000/v1"
CARRIES_SECRETS = "must not carry credentials, a query or a fragment"


def base_url_problem(base_url: str) -> str | None:
    """Why a base URL cannot be used (:data:`NOT_HTTP`) or would put a secret where it is
    recorded (:data:`CARRIES_SECRETS`), or None; each command says where that is and
    where its key comes from.

    >>> [base_url_problem(u) for u in ("http://127.0.0.1:8000/v1", "ftp://h/v1",
    ...                                "https://user:pw@h/v1")]
    [None, 'must be an http(s) URL such as http://127.0.0.1:8000/v1', \
'must not carry credentials, a query or a fragment']
    """
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return NOT_HTTP
    if parts.username or parts.password or parts.query or parts.fragment:
        return CARRIES_SECRETS
    return None


def check_base_url(base_url: str) -> None:
    """Refuse a ``--base-url`` that cannot be used or that would put a secret into the
    recogniser's record (asr.json)."""
    problem = base_url_problem(base_url)
    if problem == NOT_HTTP:
        raise InputError(f"--base-url {problem}, got {base_url!r}")
    if problem is not None:
        raise InputError(f"--base-url {problem} (it is recorded in asr.json; the key comes "
                         "from --api-key-env)")


def api_key(variable: str, missing: str) -> str:
    """The key in the environment variable ``variable``; ``missing`` is the usage error
    when it is not set or empty (it names who reads it and the option that names another
    variable)."""
    key = os.environ.get(variable)
    if not key:
        raise InputError(missing)
    return key


def unset_key(reader: str, variable: str, option: str) -> str:
    """The usual message of :func:`api_key` for ``reader`` ("the judge reads its").

    >>> unset_key("judges read their", "JUDGE_KEY", "--api-key-env")[:72]
    'judges read their API key from the environment variable JUDGE_KEY, which'
    """
    return (f"{reader} API key from the environment variable {variable}, which is not "
            f"set (set it, to any value for a server without keys, or name another with "
            f"{option})")
