"""How `ToolRegistry.execute_parallel` runs a batch: one module per stage.

```
ToolCall[] ─► admit ─► validate ─► before ─► dry_run ─► cache ─► budget ─► resolve ─► run ─► finish ─► CallOutcome[]
```

| module | what |
| --- | --- |
| ``pipeline`` | `Pipeline`: the order of the stages, concurrency, sequential barriers |
| ``admit`` | every gate: snapshot, unknown, surface, allowlist, filters, availability, backends |
| ``validate`` | the model's arguments against the tool's compiled validator |
| ``before`` | before-hooks: deny, or replace the arguments (validated again) |
| ``dry_run`` | a synthetic result; the tool never runs |
| ``approvals`` | `Approvals`: a ``requires_approval`` call runs only with a token bound to it, used once |
| ``flow`` | the flow rule: once untrusted output reached the session, a ``sink`` call is approved or refused |
| ``cache`` | the opt-in result cache |
| ``budget`` | the batch's output budget: split, capped per tool, post-trim |
| ``resolve`` | the call's `ToolContext` and its capability seams |
| ``run`` | the tool under its timeout and the abort signal (``interrupts``) |
| ``finish`` | reduce, trim, cache store, ``tool:post``, after-hooks |
| ``handles`` | `ResultHandles`: a trimmed value's full text kept in the store, behind a handle |
| ``dispatch`` | quotas, tasks and the effect journal around resolve → run → finish, for the calls they apply to |
| ``quotas`` | `Quota`/`Quotas`: limits checked and reserved on store counters before a call runs |
| ``tasks`` | `Tasks` (``registry.tasks``): a call still running at its hand-off time goes on as a task |
| ``effects`` | the effect journal: a ``side_effects`` tool acts once per ``ctx.idempotency_key`` |

Beside them: ``settings`` (what a registry fixes), ``batch`` (one batch's shared state),
``gates`` (the allowlist and filter rules) and ``hooks`` (`HookRegistry`, events). Nothing
here imports the registry.

Also here: ``deadlines.py`` (one timer for a batch's deadlines), ``quota_slots.py`` (concurrency
slots, leased and renewed) and ``quota_tables.py`` (``[[quotas]]`` from a config file), beside
``quotas``; ``task_runner.py`` (`TaskRunner`: the hand-off to the background) and
``task_records.py`` (`TaskInfo` and its record), beside ``tasks``; ``tracing.py``
(`PipelineTracer`: what may wrap batches and calls).
"""  # noqa: E501

from toolwire.execution.gates import FilterOptions

__all__ = ["FilterOptions"]
