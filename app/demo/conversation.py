"""The demo: three scripted turns played through the real runner, tools and store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from langchain_core.messages import AIMessage, ToolCall

from app.agent.events import RunEvent, RunFailed
from app.agent.models import ScriptedChatModel
from app.agent.runner import AgentRunner
from app.agent.tools import AgentSession
from app.core.store import Store
from app.core.store.messages import kind_of
from app.core.trust.policy import Policy
from app.core.trust.public_files import LinkRegistry
from app.demo.workspace import DemoWorkspace, build_demo_workspace
from app.workspace.choose import local_workspace

DEMO_TITLE: Final = "Quarterly sales analysis (demo)"
MISSPELLED_REPORT: Final = "report/indx.html"

USER_TURNS: Final = (
    "Please analyse the quarterly sales data in this folder and give me a report "
    "I can open and share.",
    "Can I see the logo you put in the public folder?",
    "Thanks. Could you also hand me the raw material: the audio note, the screen "
    "clip, the pipeline log, the handoff document and the bundle?",
)

FIRST_PRESENT: Final = (
    ("report_html", "The report page with charts and findings"),
    ("notes_md", "Summary of the findings in Markdown"),
    ("analysis_py", "The script that cleans and aggregates the orders"),
    ("metrics_json", "Aggregated metrics as JSON"),
    ("sales_csv", "The cleaned sales data"),
    ("chart_png", "Revenue by quarter, as a bar chart"),
    ("diagram_svg", "Diagram of the data pipeline"),
    ("report_pdf", "Printable version of the report"),
)
RAW_PRESENT: Final = (
    ("tone_wav", "Short audio note"),
    ("clip_avi", "Screen clip of the dashboard"),
    ("pipeline_log", "Full log of the pipeline run"),
    ("handoff_docx", "Handoff document for the finance team"),
    ("bundle_zip", "Everything above in one archive"),
)


class DemoError(RuntimeError):
    """A demo turn failed; the message says which and why."""


def _call(call_id: str, name: str, args: dict[str, Any]) -> ToolCall:
    return ToolCall(id=call_id, name=name, args=args, type="tool_call")


def _calls(*calls: ToolCall) -> AIMessage:
    return AIMessage(content="", tool_calls=list(calls))


def _files(demo: DemoWorkspace, entries: tuple[tuple[str, str], ...]) -> list[Any]:
    return [{"path": demo.files[key], "description": text} for key, text in entries]


def demo_script(demo: DemoWorkspace) -> list[AIMessage | Exception]:
    """The model's replies for the three turns, in order."""
    broken = _files(demo, FIRST_PRESENT)
    broken[0] = {**broken[0], "path": MISSPELLED_REPORT}
    logo = Path(demo.files["logo_png"]).name
    return [
        _calls(_call("call_list_1", "list_files", {"path": "."})),
        _calls(_call("call_read_1", "read_file", {"path": demo.files["metrics_json"]})),
        _calls(_call("call_present_1", "present", {"files": broken})),
        _calls(
            _call("call_present_2", "present", {"files": _files(demo, FIRST_PRESENT)})
        ),
        AIMessage(
            content=(
                "## Quarterly sales analysis\n\n"
                "Revenue grew in every quarter, from **182.4 k$** in Q1 to "
                "**268.3 k$** in Q4 (+47 %).\n\n"
                "- North is the largest region (38 % of revenue).\n"
                "- Annual plans lifted the average order value from Q3.\n"
                "- Refunds stayed below 2 % of orders.\n\n"
                "The report, its data and the script that produced it are below."
            )
        ),
        _calls(
            _call(
                "call_image_1",
                "show_image",
                {
                    "filename": logo,
                    "alt_text": "Logo of the quarterly sales report",
                    "caption": "The report's logo, from the public folder",
                },
            )
        ),
        AIMessage(content="Here is the logo. It is also used on the report's cover."),
        _calls(
            _call("call_present_3", "present", {"files": _files(demo, RAW_PRESENT)})
        ),
        AIMessage(
            content=(
                "Here is the raw material: the audio note, the screen clip, the "
                "pipeline log, the handoff document and a bundle of everything."
            )
        ),
    ]


def _complete(store: Store, conversation_id: str) -> bool:
    """Whether an earlier demo conversation holds all three turns, answered."""
    messages = store.messages(conversation_id)
    humans = sum(1 for m in messages if kind_of(m.message) == "human")
    return humans == len(USER_TURNS) and kind_of(messages[-1].message) == "ai"


def play_demo(
    store: Store,
    workspace_root: Path,
    *,
    policy_loader: Callable[[], Policy] | None = None,
    links: LinkRegistry | None = None,
    on_event: Callable[[RunEvent], None] | None = None,
) -> str:
    """Build the demo workspace, play the three turns; return the conversation id.

    Played again over the same workspace, the demo keeps one conversation: the
    earlier one when no file had to be written again (its records still match
    the files), else a new one that replaces it. Pass the UI's ``links`` so the
    image link of turn 2 resolves in the chat view.
    """
    demo = build_demo_workspace(workspace_root)
    earlier = [
        c.id
        for c in store.conversations()
        if c.title == DEMO_TITLE and c.workspace == str(demo.root)
    ]
    if earlier and not demo.written and _complete(store, earlier[-1]):
        for duplicate in earlier[:-1]:
            store.delete_conversation(duplicate)
        return earlier[-1]
    for stale in earlier:
        store.delete_conversation(stale)
    conversation = store.create_conversation(DEMO_TITLE, str(demo.root))
    session = AgentSession(
        workspace=local_workspace(demo.root),
        policy_loader=policy_loader,
        links=links if links is not None else LinkRegistry(),
    )
    model = ScriptedChatModel(replies=demo_script(demo))
    runner = AgentRunner(store, conversation.id, model, session)
    failures: list[RunFailed] = []

    def forward(event: RunEvent) -> None:
        if isinstance(event, RunFailed):
            failures.append(event)
        if on_event is not None:
            on_event(event)

    for number, text in enumerate(USER_TURNS, start=1):
        runner.run(text, forward)
        if failures:
            raise DemoError(f"Demo turn {number} failed: {failures[0].error}")
    return conversation.id
