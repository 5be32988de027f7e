"""Which A2A 1.0 error table the agent follows.

The two patches of A2A 1.0 map six errors differently (§5.4): v1.0.0 answers
TaskNotCancelable with HTTP 409, ContentTypeNotSupported with 415, InvalidAgentResponse with
502, and PushNotificationNotSupported, UnsupportedOperation and VersionNotSupported with gRPC
UNIMPLEMENTED; v1.0.1 with HTTP 400, 400, 500 and gRPC FAILED_PRECONDITION. Either is
conforming, and every error check accepts both (:mod:`app.check.target`); each answer that
tells them apart is noted (:meth:`app.check.context.CheckContext.refused_as`). This check,
made after all the others, says which table those answers followed, and fails when they
followed both: a client written against one table then misreads some of the agent's errors.

A wrong request ``Content-Type`` answered with HTTP 415 is an HTTP-level refusal
(RFC 9110 §15.5.16), not ContentTypeNotSupported of a message part: it is not noted.
"""

from __future__ import annotations

from app.check.check_model import CheckArea
from app.check.context import CheckContext, TableNote
from app.check.spec import CheckSpec, Scope, Verdict, failed, not_applicable, passed
from app.check.target import ErrorTable, Target


def _line(note: TableNote) -> str:
    return f"{note.error}: {note.code} ({note.check_id}, {note.interface})"


async def error_table(ctx: CheckContext, target: Target | None) -> Verdict:
    notes = ctx.tables
    if not notes:
        return not_applicable(
            "no answer of this run tells the v1.0.0 and v1.0.1 error tables apart (they "
            "differ for TaskNotCancelable over HTTP and for three errors over gRPC)"
        )
    followed = {table: [n for n in notes if n.table is table] for table in ErrorTable}
    used = [table for table, found in followed.items() if found]
    if len(used) == 1:
        (table,) = used
        lines = "\n".join(dict.fromkeys(_line(n) for n in followed[table]))
        return passed(f"the agent follows the A2A {table.value} error table:\n{lines}")
    lines = "\n".join(f"{table.value}: {_line(n)}" for table in ErrorTable for n in followed[table])
    return failed(
        "the agent mixes the A2A v1.0.0 and v1.0.1 error tables (§5.4); a client written "
        f"against either misreads some of its errors:\n{lines}"
    )


CHECKS = (
    CheckSpec(
        "errors.table",
        CheckArea.ERRORS,
        "the agent's errors follow one error table (v1.0.0 or v1.0.1)",
        "A2A 1.0 §5.4",
        "",
        error_table,
        Scope.CARD,
        tck=("HTTP_JSON-STATUS-001", "GRPC-ERR-002", "BIND-EQUIV-003"),
    ),
)
