"""resolve_capabilities: each seam only when declared and backed, with the right scope."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolwire.capabilities import (
    StorageScope,
    ToolCapabilities,
    attachments,
    fs_reach,
    network,
    process,
    secrets,
    storage,
)
from toolwire.capabilities.defaults import create_backends
from toolwire.capabilities.kinds.attachments._filtered import FilteredAttachments
from toolwire.capabilities.kinds.fs_reach._scoped import ReachScopedFs
from toolwire.capabilities.kinds.network import HostScopedFetch, SafeFetcher
from toolwire.capabilities.kinds.process._backends import LocalProcessBackend
from toolwire.capabilities.kinds.process._scoped import LocalScopedProcess, OwnedBackgroundProcesses
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.kinds.secrets._resolvers import (
    ChainSecretsResolver,
    DeclaredSecrets,
    EnvSecretsResolver,
    VaultSecretsResolver,
)
from toolwire.capabilities.resolver import (
    BACKEND_SETUP_HINTS,
    CapabilityBackends,
    CapabilityScope,
    DefaultTtlStore,
    FsReach,
    ResolvedCapabilities,
    missing_backends,
    resolve_capabilities,
)
from toolwire.capabilities.seams import Attachment, KeyValueStore, NetworkPolicy
from toolwire.context import AbortSignal, ToolContext
from toolwire.errors import AbortedError, ConfigurationError, PathNotReachableError
from toolwire.stores import MemoryKeyValueBackend, ScopedKeyValueStore

pytestmark = pytest.mark.anyio

SCOPE = CapabilityScope(session_id="sess-1")


class RecordingStore:
    """A KeyValueStore that remembers the TTL each set received."""

    def __init__(self) -> None:
        self.sets: list[tuple[str, str, float | None]] = []

    async def get(self, key: str) -> str | None:
        return next((v for k, v, _ in reversed(self.sets) if k == key), None)

    async def set(self, key: str, value: str, ttl_seconds: float | None = None) -> None:
        self.sets.append((key, value, ttl_seconds))

    async def delete(self, key: str) -> None:
        self.sets = [entry for entry in self.sets if entry[0] != key]

    async def list(self, prefix: str = "") -> list[str]:
        return sorted({k for k, _, _ in self.sets if k.startswith(prefix)})

    async def increment(self, key: str, by: int = 1) -> int:
        return by


class RecordingFactory:
    """A two-argument kv_store_factory that records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.store = RecordingStore()

    def __call__(self, tool: str, scope_id: str) -> KeyValueStore:
        self.calls.append((tool, scope_id))
        return self.store


def same_file(a: str, b: Path) -> bool:
    return os.path.samefile(a, b)


def caps(*declarations: object) -> ToolCapabilities:
    return ToolCapabilities.of(*declarations)  # type: ignore[arg-type]


@pytest.fixture
def memory_backend() -> MemoryKeyValueBackend:
    return MemoryKeyValueBackend()


# ---------------------------------------------------------------- nothing declared


async def test_an_empty_declaration_resolves_to_no_seams() -> None:
    resolved = resolve_capabilities("t", ToolCapabilities(), SCOPE, CapabilityBackends())
    assert resolved == ResolvedCapabilities()


async def test_apply_clears_seams_the_tool_did_not_declare() -> None:
    ctx = ToolContext(session_id="s", scoped_process=LocalScopedProcess(["*"]))
    applied = ResolvedCapabilities().apply(ctx)
    assert applied.scoped_process is None
    assert applied.session_id == "s"


async def test_apply_fills_the_declared_seams() -> None:
    resolved = resolve_capabilities("t", caps(process(["echo"])), SCOPE, CapabilityBackends())
    ctx = resolved.apply(ToolContext(session_id="s", current_turn=3))
    assert ctx.scoped_process is resolved.scoped_process
    assert ctx.current_turn == 3


def test_scope_from_context_copies_the_call_fields() -> None:
    policy = NetworkPolicy(allow=("a.com",))
    signal = AbortSignal()
    ctx = ToolContext(
        session_id="s",
        personality_id="p",
        abort_signal=signal,
        working_dir="/w",
        network_policy=policy,
    )
    scope = CapabilityScope.from_context(ctx)
    assert (scope.session_id, scope.personality_id, scope.working_dir) == ("s", "p", "/w")
    assert scope.abort_signal is signal
    assert scope.network_policy is policy


# ---------------------------------------------------------------- storage


async def test_storage_calls_the_factory_exactly_like_spec_04() -> None:
    factory = RecordingFactory()
    backends = CapabilityBackends(kv_store_factory=factory)
    resolved = resolve_capabilities("usage_counter", caps(storage("tool-private")), SCOPE, backends)
    assert resolved.kv_store is factory.store
    assert factory.calls == [("usage_counter", "tool:usage_counter")]


@pytest.mark.parametrize(
    ("scope", "call", "expected"),
    [
        ("session", CapabilityScope(session_id="sess-abc123"), "session:sess-abc123"),
        (
            "personality",
            CapabilityScope(session_id="s", personality_id="researcher"),
            "personality:researcher",
        ),
        ("personality", CapabilityScope(session_id="sess-9"), "personality:sess-9"),
    ],
)
async def test_storage_scope_ids(scope: StorageScope, call: CapabilityScope, expected: str) -> None:
    factory = RecordingFactory()
    backends = CapabilityBackends(kv_store_factory=factory)
    resolve_capabilities("t", caps(storage(scope)), call, backends)
    assert factory.calls == [("t", expected)]


async def test_storage_without_a_factory_is_absent_and_reported() -> None:
    declared = caps(storage("session"))
    resolved = resolve_capabilities("t", declared, SCOPE, CapabilityBackends())
    assert resolved.kv_store is None
    assert missing_backends(declared, CapabilityBackends()) == ["storage"]
    assert "kv_store_factory" in BACKEND_SETUP_HINTS["storage"]


async def test_a_two_argument_factory_gets_the_default_ttl_through_a_wrapper() -> None:
    factory = RecordingFactory()
    backends = CapabilityBackends(kv_store_factory=factory)
    declared = caps(storage("session", ttl_seconds_default=1800))
    store = resolve_capabilities("t", declared, SCOPE, backends).kv_store
    assert isinstance(store, DefaultTtlStore)
    await store.set("a", "1")
    await store.set("b", "2", ttl_seconds=60)
    assert factory.store.sets == [("a", "1", 1800), ("b", "2", 60)]
    assert factory.calls == [("t", "session:sess-1")]


async def test_the_default_ttl_store_passes_reads_through() -> None:
    inner = RecordingStore()
    store = DefaultTtlStore(inner, 5)
    await store.set("k1", "v")
    assert await store.get("k1") == "v"
    assert await store.list("k") == ["k1"]
    assert await store.increment("n", 2) == 2
    await store.delete("k1")
    assert await store.get("k1") is None


def test_the_default_ttl_must_be_positive() -> None:
    with pytest.raises(ConfigurationError):
        DefaultTtlStore(RecordingStore(), 0)


async def test_a_backend_factory_receives_the_default_ttl_itself(
    memory_backend: MemoryKeyValueBackend,
) -> None:
    backends = CapabilityBackends(kv_store_factory=memory_backend.scoped)
    declared = caps(storage("tool-private", ttl_seconds_default=1800))
    store = resolve_capabilities("t", declared, SCOPE, backends).kv_store
    assert isinstance(store, ScopedKeyValueStore)
    assert store.ttl_seconds_default == 1800


async def test_stores_of_different_scopes_do_not_share_keys(
    memory_backend: MemoryKeyValueBackend,
) -> None:
    backends = CapabilityBackends(kv_store_factory=memory_backend.scoped)
    one = resolve_capabilities("t", caps(storage("session")), SCOPE, backends).kv_store
    other_scope = CapabilityScope(session_id="sess-2")
    two = resolve_capabilities("t", caps(storage("session")), other_scope, backends).kv_store
    assert one is not None
    assert two is not None
    await one.set("k", "v")
    assert await two.get("k") is None


# ---------------------------------------------------------------- secrets and network


async def test_secrets_are_built_only_with_a_resolver() -> None:
    declared = caps(secrets(["providers/exa/apiKey"]))
    resolver = EnvSecretsResolver(environ={"EXA_API_KEY": "k"})
    resolved = resolve_capabilities(
        "t", declared, SCOPE, CapabilityBackends(secrets_resolver=resolver)
    )
    assert isinstance(resolved.secrets_resolver, DeclaredSecrets)
    assert await resolved.secrets_resolver.get("providers/exa/apiKey") == "k"
    assert resolve_capabilities("t", declared, SCOPE, CapabilityBackends()).secrets_resolver is None
    assert missing_backends(declared, CapabilityBackends()) == ["secrets"]


async def test_network_is_built_only_with_a_fetcher() -> None:
    declared = caps(network(["api.github.com"]))
    async with SafeFetcher() as fetcher:
        resolved = resolve_capabilities("t", declared, SCOPE, CapabilityBackends(fetcher=fetcher))
        assert isinstance(resolved.scoped_fetch, HostScopedFetch)
        assert resolved.scoped_fetch.allowed_hosts == ("api.github.com",)
    assert resolve_capabilities("t", declared, SCOPE, CapabilityBackends()).scoped_fetch is None
    assert missing_backends(declared, CapabilityBackends()) == ["network"]


async def test_star_hosts_resolve_to_the_policy_allow_list() -> None:
    policy = NetworkPolicy(allow=("api.x.com", "docs.y.org"))
    async with SafeFetcher() as fetcher:
        backends = CapabilityBackends(fetcher=fetcher, network_policy=policy)
        resolved = resolve_capabilities("t", caps(network(["*"])), SCOPE, backends)
    assert isinstance(resolved.scoped_fetch, HostScopedFetch)
    assert set(resolved.scoped_fetch.allowed_hosts) == {"api.x.com", "docs.y.org"}


async def test_the_calls_network_policy_overrides_the_backends_one() -> None:
    boot = NetworkPolicy(allow=("old.example.com",))
    current = NetworkPolicy(allow=("new.example.com",))
    async with SafeFetcher() as fetcher:
        backends = CapabilityBackends(fetcher=fetcher, network_policy=boot)
        scope = CapabilityScope(session_id="s", network_policy=current)
        resolved = resolve_capabilities("t", caps(network(["*"])), scope, backends)
    assert isinstance(resolved.scoped_fetch, HostScopedFetch)
    assert resolved.scoped_fetch.allowed_hosts == ("new.example.com",)


# ---------------------------------------------------------------- process


async def test_process_is_always_built_with_the_declared_binaries() -> None:
    resolved = resolve_capabilities("t", caps(process(["git"])), SCOPE, CapabilityBackends())
    assert isinstance(resolved.scoped_process, LocalScopedProcess)
    assert resolved.scoped_process.allowed_binaries == frozenset({"git"})
    assert missing_backends(caps(process(["git"])), CapabilityBackends()) == []


async def test_process_gets_the_calls_abort_signal_and_working_dir(tmp_path: Path) -> None:
    signal = AbortSignal()
    scope = CapabilityScope(session_id="s", abort_signal=signal, working_dir=str(tmp_path))
    seam = resolve_capabilities("t", caps(process(["pwd"])), scope, CapabilityBackends())
    assert seam.scoped_process is not None
    result = await seam.scoped_process.spawn("pwd")
    assert same_file(result.stdout.strip(), tmp_path)
    signal.abort("stop")
    with pytest.raises(AbortedError):
        await seam.scoped_process.spawn("pwd")


async def test_the_process_seam_is_bound_to_the_calls_personality(tmp_path: Path) -> None:
    manager = ProcessManager(str(tmp_path / "procs"))
    async with CapabilityBackends(processes=LocalProcessBackend(manager)) as backends:
        for personality, owner in (("coder", "coder"), (None, "default")):
            scope = CapabilityScope(session_id="s", personality_id=personality)
            seam = resolve_capabilities("t", caps(process(["bash"])), scope, backends)
            assert isinstance(seam.scoped_process, LocalScopedProcess)
            assert isinstance(seam.scoped_process.background, OwnedBackgroundProcesses)
            assert seam.scoped_process.background.owner == owner


# ---------------------------------------------------------------- file reach


async def test_declared_relative_reach_resolves_against_the_working_dir(tmp_path: Path) -> None:
    scope = CapabilityScope(session_id="s", working_dir=str(tmp_path))
    declared = caps(fs_reach(read=["docs"], write=["out"]))
    fs = resolve_capabilities("t", declared, scope, CapabilityBackends()).scoped_fs
    assert isinstance(fs, ReachScopedFs)
    assert fs.read_prefixes == (str(tmp_path / "docs"),)
    assert fs.write_prefixes == (str(tmp_path / "out"),)


async def test_from_personality_uses_the_backend_defaults(tmp_path: Path) -> None:
    backends = CapabilityBackends(fs_read=[str(tmp_path)], fs_write=[])
    declared = caps(fs_reach(read="from-personality", write="from-personality"))
    fs = resolve_capabilities("t", declared, SCOPE, backends).scoped_fs
    assert isinstance(fs, ReachScopedFs)
    assert fs.read_prefixes == (str(tmp_path),)
    assert fs.write_prefixes == ()


async def test_the_personality_reach_is_asked_once_per_execution(tmp_path: Path) -> None:
    asked: list[str | None] = []

    def reach(personality_id: str | None) -> FsReach:
        asked.append(personality_id)
        return FsReach(read=(str(tmp_path / "r"),), write=(str(tmp_path / "w"),))

    backends = CapabilityBackends(personality_fs_reach=reach)
    declared = caps(fs_reach(read="from-personality", write="from-personality"))
    scope = CapabilityScope(session_id="s", personality_id="coder")
    fs = resolve_capabilities("t", declared, scope, backends).scoped_fs
    assert isinstance(fs, ReachScopedFs)
    assert fs.read_prefixes == (str(tmp_path / "r"),)
    assert fs.write_prefixes == (str(tmp_path / "w"),)
    assert asked == ["coder"]
    resolve_capabilities("t", declared, scope, backends)
    assert asked == ["coder", "coder"]


@pytest.mark.parametrize("outcome", ["unknown", "raises"])
async def test_an_unknown_or_failing_personality_gets_no_reach(
    tmp_path: Path, outcome: str
) -> None:
    def reach(personality_id: str | None) -> FsReach | None:
        if outcome == "raises":
            raise RuntimeError("personality store down")
        return None

    backends = CapabilityBackends(personality_fs_reach=reach, fs_read=[str(tmp_path)])
    declared = caps(fs_reach(read="from-personality"))
    fs = resolve_capabilities("t", declared, SCOPE, backends).scoped_fs
    assert isinstance(fs, ReachScopedFs)
    assert fs.read_prefixes == ()
    with pytest.raises(PathNotReachableError):
        await fs.read(str(tmp_path / "anything"))


async def test_always_deny_is_applied(tmp_path: Path) -> None:
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "x").write_text("x")
    backends = CapabilityBackends(always_deny=[str(tmp_path / "private")])
    fs = resolve_capabilities("t", caps(fs_reach(read=[str(tmp_path)])), SCOPE, backends).scoped_fs
    assert fs is not None
    with pytest.raises(PathNotReachableError, match="always-deny"):
        await fs.read(str(tmp_path / "private" / "x"))


def test_backends_refuse_a_single_string_of_paths() -> None:
    with pytest.raises(ConfigurationError):
        CapabilityBackends(fs_read="/tmp")


# ---------------------------------------------------------------- attachments


@pytest.fixture
def attached(tmp_path: Path) -> tuple[Path, list[Attachment]]:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "p.png").write_bytes(b"png")
    (cache / "d.pdf").write_bytes(b"pdf")
    (cache / "other.txt").write_text("not attached")
    return cache, [
        Attachment(ref="a1", kind="image", url=(cache / "p.png").as_uri()),
        Attachment(ref="a2", kind="file", url=(cache / "d.pdf").as_uri()),
    ]


async def test_attachments_are_filtered_and_readable_through_fs(
    attached: tuple[Path, list[Attachment]],
) -> None:
    cache, turn = attached
    backends = CapabilityBackends(attachment_cache_dir=str(cache))
    scope = CapabilityScope(session_id="s", turn_attachments=turn)
    resolved = resolve_capabilities("t", caps(attachments(["image"])), scope, backends)
    assert isinstance(resolved.attachments, FilteredAttachments)
    assert [a.ref for a in resolved.attachments.list()] == ["a1"]
    fs = resolved.scoped_fs
    assert isinstance(fs, ReachScopedFs)
    assert fs.write_prefixes == ()
    opened = await resolved.attachments.open_by_ref("a1")
    assert await fs.read_bytes(opened.path) == b"png"
    with pytest.raises(PathNotReachableError):
        await fs.read(str(cache / "other.txt"))
    with pytest.raises(PathNotReachableError):
        await fs.read(str(cache / "d.pdf"))


async def test_attachment_files_extend_declared_read_reach(
    attached: tuple[Path, list[Attachment]], tmp_path: Path
) -> None:
    cache, turn = attached
    declared = caps(attachments("*"), fs_reach(read=[str(tmp_path / "docs")]))
    scope = CapabilityScope(session_id="s", turn_attachments=turn)
    fs = resolve_capabilities("t", declared, scope, CapabilityBackends()).scoped_fs
    assert isinstance(fs, ReachScopedFs)
    assert fs.read_prefixes == (
        str(tmp_path / "docs"),
        str(cache / "p.png"),
        str(cache / "d.pdf"),
    )


async def test_inbound_attachments_come_before_the_turns(
    attached: tuple[Path, list[Attachment]],
) -> None:
    _, turn = attached
    backends = CapabilityBackends(inbound_attachments=turn[:1])
    scope = CapabilityScope(session_id="s", turn_attachments=turn[1:])
    seam = resolve_capabilities("t", caps(attachments("*")), scope, backends).attachments
    assert seam is not None
    assert [a.ref for a in seam.list()] == ["a1", "a2"]


async def test_attachments_without_files_add_no_fs() -> None:
    resolved = resolve_capabilities("t", caps(attachments("*")), SCOPE, CapabilityBackends())
    assert resolved.attachments is not None
    assert resolved.attachments.list() == []
    assert resolved.scoped_fs is None


# ---------------------------------------------------------------- create_backends


async def test_create_backends_without_kv_has_no_storage(tmp_path: Path) -> None:
    backends = create_backends(working_dir=str(tmp_path), kv_url=None, fetcher=None)
    assert backends.kv_store_factory is None
    assert backends.fs_read == (str(tmp_path),)
    assert backends.fs_write == (str(tmp_path),)
    assert missing_backends(caps(storage("session")), backends) == ["storage"]


async def test_create_backends_defaults_to_sqlite_in_the_working_dir(tmp_path: Path) -> None:
    async with create_backends(working_dir=str(tmp_path)) as backends:
        assert isinstance(backends.fetcher, SafeFetcher)
        resolved = resolve_capabilities("t", caps(storage("session")), SCOPE, backends)
        assert resolved.kv_store is not None
        await resolved.kv_store.set("k", "v")
        assert await resolved.kv_store.get("k") == "v"
    assert (tmp_path / ".toolwire" / "state.db").exists()


async def test_create_backends_reads_settings_from_config(tmp_path: Path) -> None:
    config = {
        "working_dir": str(tmp_path),
        "kv_url": "memory://",
        "network": {"allow": ["api.x.com"], "deny": ["bad.x.com"]},
        "secrets_vault_dir": str(tmp_path / "vault"),
        "process_default_timeout_s": 5,
    }
    async with create_backends(config, fetcher=None) as backends:
        assert backends.network_policy == NetworkPolicy(allow=("api.x.com",), deny=("bad.x.com",))
        assert isinstance(backends.secrets_resolver, ChainSecretsResolver)
        assert backends.process_default_timeout_s == 5
        await VaultSecretsResolver(tmp_path / "vault").set("providers/x/k", "from-vault")
        assert await backends.secrets_resolver.get("providers/x/k") == "from-vault"


@pytest.mark.parametrize("isolate", [False, True])
async def test_create_backends_shares_session_storage_across_tools_unless_isolated(
    isolate: bool,
) -> None:
    async with create_backends(kv_url="memory://", fetcher=None, kv_isolate_tools=isolate) as b:
        notes = resolve_capabilities("notes", caps(storage("session")), SCOPE, b).kv_store
        todo = resolve_capabilities("todo", caps(storage("session")), SCOPE, b).kv_store
        assert notes is not None
        assert todo is not None
        await notes.set("plan", "ship it")
        assert await todo.get("plan") == (None if isolate else "ship it")


def test_create_backends_refuses_a_non_bool_isolation_setting() -> None:
    with pytest.raises(ConfigurationError, match="isolate_tools"):
        create_backends(kv_url="memory://", fetcher=None, kv_isolate_tools="yes")


async def test_create_backends_without_a_vault_uses_the_environment() -> None:
    backends = create_backends(kv_url=None, fetcher=None, secrets_vault_dir=None)
    assert isinstance(backends.secrets_resolver, EnvSecretsResolver)


def test_create_backends_refuses_unknown_settings() -> None:
    with pytest.raises(ConfigurationError, match="kv_ulr"):
        create_backends(kv_ulr="memory://")


def test_create_backends_refuses_a_malformed_network_setting() -> None:
    with pytest.raises(ConfigurationError, match="network"):
        create_backends(kv_url=None, fetcher=None, network={"allowed": ["x"]})
