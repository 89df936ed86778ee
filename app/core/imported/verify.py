"""Verify an imported file: the present check, then its content against the session."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from app.core.store import Store
from app.core.store.import_store import ImportStore
from app.core.store.imported_files import ImportedFileRef
from app.core.trust.declare import MISSING, DeclarationError, declare
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.records import FileEntry, Record, UnsupportedRecord, parse_record
from app.core.trust.revalidate import Check, Verdict, open_entry
from app.core.trust.safeio import VerifiedFile


class VerifyVerdict(StrEnum):
    """What Verify found; the first three keep the file's actions available."""

    UNCHANGED = "unchanged"
    MODIFIED = "modified"
    UNRECORDED = "unrecorded"  # allowed now; the session kept no content to compare
    MISSING = "missing"
    REFUSED = "refused"  # the present check (or the open after it) refused it


_MESSAGES = {
    VerifyVerdict.UNCHANGED: "unchanged since the session",
    VerifyVerdict.MODIFIED: "modified since the session",
    VerifyVerdict.UNRECORDED: "the session did not record its content; checked now",
    VerifyVerdict.MISSING: "missing",
}
_VERIFIED = (VerifyVerdict.UNCHANGED, VerifyVerdict.MODIFIED, VerifyVerdict.UNRECORDED)


@dataclass(frozen=True)
class VerifyResult:
    verdict: VerifyVerdict
    message: str
    record: Record | None  # the trusted record made, when the check passed

    @property
    def verified(self) -> bool:
        return self.verdict in _VERIFIED


UNCONFIRMED: Final = (
    "refused (the session's workspace is not confirmed: choose the folder it "
    "worked in first)"
)


def confirmed_workspace(store: Store, conversation_id: str) -> str:
    """The workspace the user confirmed for an imported session; ``""``: none yet."""
    try:
        return store.conversation(conversation_id).workspace
    except KeyError:
        return ""


def _hash(opened: VerifiedFile) -> str | None:
    """The content hash read through the checked descriptor, or ``None`` if the
    file changed while it was read."""
    digest = hashlib.sha256()
    for chunk in opened.chunks():
        digest.update(chunk)
    return digest.hexdigest() if opened.current_identity() == opened.identity else None


def _refused(error: DeclarationError) -> VerifyResult:
    failure = error.failures[0] if error.failures else None
    if failure is not None and failure.reason == MISSING:
        return VerifyResult(
            VerifyVerdict.MISSING, _MESSAGES[VerifyVerdict.MISSING], None
        )
    detail = f"{failure.reason}: {failure.detail}" if failure else error.message
    return VerifyResult(VerifyVerdict.REFUSED, f"refused ({detail})", None)


def verify_imported(
    store: Store,
    ref: ImportedFileRef,
    policy: Policy,
    *,
    mode: PermissionMode = PermissionMode.WORKSPACE_ONLY,
) -> VerifyResult:
    """Run the present check on an imported entry and compare its content.

    The path is the one the transcript named, joined to the folder the
    session was in when it named it, and checked by the same check a
    ``present`` call gets (policy, permission mode, final symlink, file type)
    in the workspace the user confirmed: never in the folder the transcript
    claims. Only if it passes is the file opened, through the checked
    descriptor, to hash it. A passing check stores a trusted record, as if the
    file had been presented now.
    """
    entry = ImportStore(store).file(ref.conversation_id, ref.entry_id)
    if entry is None:
        return VerifyResult(VerifyVerdict.REFUSED, "no such imported file", None)
    workspace = confirmed_workspace(store, ref.conversation_id)
    if not workspace:
        return VerifyResult(VerifyVerdict.REFUSED, UNCONFIRMED, None)
    description = f"Imported from a {entry.source} session"
    arguments = {"files": [{"path": entry.resolved, "description": description}]}
    try:
        record = declare(arguments, workspace=workspace, mode=mode, policy=policy)
    except DeclarationError as error:
        return _refused(error)
    check, opened = open_entry(record.files[0], policy, trusted=True, mode=mode)
    if opened is None:
        if check.verdict is Verdict.MISSING:
            return VerifyResult(VerifyVerdict.MISSING, check.reason, None)
        return VerifyResult(VerifyVerdict.REFUSED, f"refused ({check.reason})", None)
    with opened:
        current = _hash(opened)
    if current is None:
        reason = "refused (it changed while it was checked; verify again)"
        return VerifyResult(VerifyVerdict.REFUSED, reason, None)
    if entry.sha256 is None:
        verdict = VerifyVerdict.UNRECORDED
    elif current == entry.sha256:
        verdict = VerifyVerdict.UNCHANGED
    else:
        verdict = VerifyVerdict.MODIFIED
    store.save_verification(
        ref.conversation_id, ref.entry_id, record.to_json(), verdict
    )
    return VerifyResult(verdict, _MESSAGES[verdict], record)


@dataclass(frozen=True)
class VerificationState:
    """What the card of an imported entry shows: verified or not, and the verdict."""

    verified: bool
    verdict: VerifyVerdict | None
    message: str


def verification_state(store: Store, ref: ImportedFileRef) -> VerificationState:
    stored = store.verification(ref.conversation_id, ref.entry_id)
    if stored is None or not stored.trusted:
        return VerificationState(False, None, "imported — not verified")
    try:
        verdict = VerifyVerdict(stored.verdict)
    except ValueError:
        return VerificationState(False, None, "imported — not verified")
    return VerificationState(True, verdict, _MESSAGES.get(verdict, verdict.value))


def check_imported(
    store: Store,
    ref: ImportedFileRef,
    policy: Policy,
    *,
    mode: PermissionMode | None = None,
    keep_open: bool = False,
) -> tuple[Check, FileEntry | None, VerifiedFile | None]:
    """Revalidate an imported entry before an action, like a deliverable card.

    Only the record Verify made counts, and only if its MAC holds; the file is
    then checked again as any presented file is.
    """
    stored = store.verification(ref.conversation_id, ref.entry_id)
    if stored is None:
        return Check(Verdict.UNTRUSTED, "imported — not verified"), None, None
    record = parse_record(stored.raw)
    if not stored.trusted or isinstance(record, UnsupportedRecord):
        reason = "its verification was not written by this app"
        return Check(Verdict.UNTRUSTED, reason), None, None
    if record.workspace != confirmed_workspace(store, ref.conversation_id):
        reason = "it was verified in another workspace than the one confirmed now"
        return Check(Verdict.UNTRUSTED, reason), None, None
    entry = record.files[0]
    check, opened = open_entry(entry, policy, trusted=True, mode=mode)
    if check.verdict is Verdict.CHANGED:
        check = Check(
            Verdict.CHANGED, "it changed since it was verified", check.identity
        )
    if opened is not None and not keep_open:
        opened.close()
        opened = None
    return check, entry, opened
