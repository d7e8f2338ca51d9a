"""Request dependencies: the table service and role-token authentication.

Authentication: each role (``dealer``, ``surveillance``, ``broadcast``) has its own secret token.
A client sends it as ``Authorization: Bearer <token>``; pages and ``EventSource`` streams, which
cannot set headers, may send ``?token=<token>`` instead (the access log of :func:`run_server`
masks it). Tokens are compared in constant time. No token, or a token no role has: 401. A known
token whose role may not use the endpoint: 403.

Who may read what:

===================  ============  ==============  ============
endpoint             dealer        surveillance    broadcast
===================  ============  ==============  ============
``/dealer`` reads    yes           yes             no
``/dealer`` commands yes           no              no
``/surveillance``    no            yes             no
``/overlay``         no            yes             yes
===================  ============  ==============  ============

The dealer may not read the overlay: once the delay has passed it shows every live hole card.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping
from typing import Annotated

from fastapi import Depends, HTTPException, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from controller.service import TableService

ROLES = ("dealer", "surveillance", "broadcast")

_bearer = HTTPBearer(auto_error=False, description="Role token: Authorization: Bearer <token>")


class TokenAuth:
    """Role lookup by token, in constant time per role.

    >>> auth = TokenAuth({"dealer": "d" * 16, "broadcast": "b" * 16})
    >>> auth.role_for("d" * 16), auth.role_for("x"), auth.role_for("")
    ('dealer', None, None)
    """

    def __init__(self, tokens: Mapping[str, str]) -> None:
        unknown = set(tokens) - set(ROLES)
        if unknown:
            raise ValueError(f"unknown role(s) {sorted(unknown)}: the roles are {', '.join(ROLES)}")
        usable = {r: t for r, t in tokens.items() if t}
        if not usable:
            raise ValueError("no role token given: the server would refuse everyone")
        if len(set(usable.values())) != len(usable):
            raise ValueError("two roles share a token: each role needs its own")
        self._tokens = {r: t.encode("utf-8") for r, t in usable.items()}

    @property
    def roles(self) -> tuple[str, ...]:
        return tuple(self._tokens)

    def role_for(self, token: str | None) -> str | None:
        if not token:
            return None
        given = token.encode("utf-8")
        found = None
        for role, secret in self._tokens.items():  # no early exit: the time does not depend on the role
            if hmac.compare_digest(given, secret):
                found = role
        return found


def get_service(request: Request) -> TableService:
    return request.app.state.service  # type: ignore[no-any-return]


ServiceDep = Annotated[TableService, Depends(get_service)]


def get_role(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)] = None,
    token: Annotated[str | None, Query(description="role token, for pages and EventSource streams "
                                                   "that cannot send a header")] = None,
) -> str:
    """The caller's role, from the bearer header or ``?token=``.

    :raises HTTPException: 401 without a token or with one no role has.
    """
    auth: TokenAuth = request.app.state.auth
    given = bearer.credentials if bearer is not None else token
    role = auth.role_for(given)
    if role is None:
        raise HTTPException(401, "a role token is required (Authorization: Bearer <token> or ?token=)"
                            if not given else "unknown token",
                            headers={"WWW-Authenticate": "Bearer"})
    return role


def require(*roles: str) -> Callable[..., str]:
    """A dependency that admits only ``roles`` (403 for any other known role)."""

    def check(role: Annotated[str, Depends(get_role)]) -> str:
        if role not in roles:
            raise HTTPException(403, f"the {role} role may not use this endpoint")
        return role

    check.__name__ = f"require_{'_or_'.join(roles)}"
    return check


DealerReader = Annotated[str, Depends(require("dealer", "surveillance"))]
"""The dealer's screen: the dealer, and surveillance watching it."""
DealerOnly = Annotated[str, Depends(require("dealer"))]
"""The dealer's console commands."""
SurveillanceOnly = Annotated[str, Depends(require("surveillance"))]
BroadcastReader = Annotated[str, Depends(require("broadcast", "surveillance"))]
"""The delayed overlay: broadcast, and surveillance checking what goes on air."""
