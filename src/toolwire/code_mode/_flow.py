"""The flow policy: untrusted data does not drive sinks.

A tool declares ``sink=True`` when it sends data out or changes something outside (posts,
mails, pushes, writes to a shared place). Once a program has received the output of a tool
with ``output_is_untrusted`` (a web page, a mail, an issue body), the rest of the program may
be following instructions an attacker wrote, so a later call to a sink is, per
``CodeModeSettings.after_untrusted``:

* ``"approve"`` (the default): paused for a human, who sees the tool and its arguments;
* ``"refuse"``: refused inside the program (a ``PermissionError`` it can catch);
* ``"allow"``: run as usual.

This is the coarse, program-level half of CaMeL's and FIDES' information-flow control and the
"at most two of: untrusted input, private data, outside communication" rule of Meta's "Agents
Rule of Two": the taint is one bit for the whole program, set by any untrusted result, never
cleared, and started from the session's (`toolwire.code_mode._turns`). The model's direct sink
calls meet the same rule in the pipeline (`toolwire.execution.flow`), which leaves the calls a
program makes to the program. It cannot tell which value came from where (a sink call whose
arguments hold no untrusted byte is still stopped), and a tool that exfiltrates but is not
declared ``sink`` is not stopped.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.code_mode._settings import AfterUntrusted
from toolwire.tools import Tool

__all__ = ["FlowState", "flow_verdict"]


@dataclass(kw_only=True, slots=True)
class FlowState:
    """What one program has read so far.

    Attributes:
        untrusted_from: The first tool whose untrusted output the program received, or ``None``.
    """

    untrusted_from: str | None = None

    def saw(self, tool: Tool) -> None:
        """Note the result of ``tool`` reached the program."""
        if tool.output_is_untrusted and self.untrusted_from is None:
            self.untrusted_from = tool.name


def flow_verdict(state: FlowState, tool: Tool, policy: AfterUntrusted) -> AfterUntrusted:
    """``"allow"`` when a call to ``tool`` may run now, else ``"approve"`` or ``"refuse"``."""
    if not tool.sink or state.untrusted_from is None:
        return "allow"
    return policy
