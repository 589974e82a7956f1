"""Where users plug in: one registry mechanism for scorers, rubrics, judge backends and system adapters.

A registry maps names to objects. The built-ins are named by ``"module:attribute"`` strings and load on first
use, so that the core can list a higher layer's plug-ins without importing it, and importing assay builds
nothing. Other packages add theirs through an entry point group (``[project.entry-points."assay.scorers"]``)
or, in process, with ``register``. A plug-in that fails to load, gives the wrong kind of object, or takes a
name already used is left out and remembered: the first use of the registry's contents stops with one error
naming the entry point (``check``), never a traceback, while ``--help`` still works.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .errors import UsageError

if TYPE_CHECKING:
    import importlib.metadata

T = TypeVar("T")


def load_named(target: str) -> Any:
    """The object a ``"package.module:attribute"`` string names."""
    module, _, attribute = target.partition(":")
    loaded: Any = importlib.import_module(module)
    for part in attribute.split(".") if attribute else ():
        loaded = getattr(loaded, part)
    return loaded


def may_declare(group: str) -> bool:
    """Whether an installed package may declare an entry point in `group`: False only when none of the
    packages' metadata that ``importlib.metadata`` would read (each ``*.dist-info`` and ``*.egg-info``
    directory of each folder of ``sys.path``) has an ``entry_points.txt`` naming the group. Every run
    reads the registries, and loading ``importlib.metadata`` and parsing every installed package's
    metadata costs more than a one-row score; when a package may declare one, that full scan decides.
    Where the metadata may be elsewhere (a zip on ``sys.path``, another finder of distributions on
    ``sys.meta_path``), or a file cannot be read as the scan would read it, the answer is True."""
    if any(
        getattr(finder, "find_distributions", None) is not None
        and finder is not importlib.machinery.PathFinder
        for finder in sys.meta_path
    ):
        return True
    for folder in sys.path:
        root = folder or "."  # the current directory, as importlib.metadata reads it
        try:
            children = os.listdir(root)
        except NotADirectoryError:
            return True  # a zip file of packages
        except OSError:
            continue  # missing or unreadable: importlib.metadata finds nothing there either
        in_an_egg = os.path.basename(root).lower().endswith(".egg")
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")) or (in_an_egg and low == "egg-info"):
                try:
                    with open(os.path.join(root, child, "entry_points.txt"), encoding="utf-8") as file:
                        if group in file.read():
                            return True
                except (FileNotFoundError, NotADirectoryError):
                    continue  # no entry points (an egg-info file holds only the package's summary)
                except (OSError, ValueError):
                    return True  # let the full scan meet it as before
    return False


class Registry(Mapping[str, T], Generic[T]):
    """Plug-ins of one kind by name: the built-ins (loaded on first use), entry points, then registered ones.

    `kind` names one plug-in in errors ("scorer", "judge backend"); `accepts` is the type every plug-in must
    be; `name_of` gives a plug-in's own name (an entry point may give a list of them), or None to name it by
    its entry point.
    """

    def __init__(
        self,
        kind: str,
        group: str,
        built_in: Mapping[str, str],
        accepts: type[T],
        name_of: Callable[[T], str] | None = None,
        named: str | None = None,
    ) -> None:
        self.kind, self.group, self.accepts, self.name_of = kind, group, accepts, name_of
        self.named = named or kind  # what a name names, in errors ("metric" for a scorer)
        self._built_in_targets = dict(built_in)
        self._loaded: dict[str, T] = {}
        self._plugins: dict[str, T] | None = None
        self._added: dict[str, T] = {}
        self.errors: list[UsageError] = []  # the plug-ins left out, and why

    # --- the mapping -------------------------------------------------------------------------------------

    def __getitem__(self, name: str) -> T:
        if name in self._built_in_targets:
            return self._built_in(name)
        found = self._added.get(name)
        if found is None:
            found = self._load_plugins()[name]  # KeyError: not registered
        return found

    def __iter__(self) -> Iterator[str]:
        return iter([*self._built_in_targets, *self._load_plugins(), *self._added])

    def __len__(self) -> int:
        return len(list(iter(self)))

    def __contains__(self, name: object) -> bool:
        return name in self._built_in_targets or name in self._added or name in self._load_plugins()

    def built_in_names(self) -> tuple[str, ...]:
        """The built-ins' names, without loading any of them."""
        return tuple(self._built_in_targets)

    def get_or_fail(self, name: str, what: str | None = None) -> T:
        """The plug-in `name`; an unknown name is a UsageError listing the known ones (and a broken
        plug-in's own error first, since the name may be its)."""
        try:
            return self[name]
        except KeyError:
            self.check()
            raise UsageError(
                f"unknown {what or self.kind} {name!r}", fix=f"use one of: {', '.join(self)}"
            ) from None

    def check(self) -> None:
        """Stop with the first broken plug-in's error (a run with a plug-in half-loaded would mislead)."""
        self._load_plugins()
        if self.errors:
            raise self.errors[0]

    def register(self, plugin: T, name: str | None = None) -> T:
        """Make `plugin` known in this process (a notebook's, a test's); returns it."""
        if not isinstance(plugin, self.accepts):
            raise UsageError(
                f"a {type(plugin).__name__} was given where a {self.kind} "
                f"({self.accepts.__name__}) is wanted",
                fix=f"give an {self.accepts.__module__.split('.')[0]}.{self.accepts.__name__}",
            )
        name = name or self._name(plugin, None)
        known = self._added.get(name)
        if known is None and name in self:
            known = self[name]
        if known is not None and known != plugin:
            raise UsageError(
                f"a {self.kind} named {name!r} has the name of {self._owner(name)} already",
                fix=f"give the {self.kind} another name",
            )
        self._added[name] = plugin
        return plugin

    def forget(self, name: str) -> None:
        """Undo ``register`` for `name`."""
        self._added.pop(name, None)

    def reload(self) -> None:
        """Forget the entry points' plug-ins, to find them again (after installing one in-process)."""
        self._plugins, self.errors = None, []

    # --- loading -----------------------------------------------------------------------------------------

    def _built_in(self, name: str) -> T:
        found = self._loaded.get(name)
        if found is None:
            found = self._loaded[name] = load_named(self._built_in_targets[name])
        return found

    def _load_plugins(self) -> dict[str, T]:
        if self._plugins is None:
            self._plugins = {}
            if may_declare(self.group):
                import importlib.metadata  # here: slow to load, and its scan slower than may_declare's

                for entry_point in importlib.metadata.entry_points(group=self.group):
                    self._add_entry_point(entry_point, self._plugins)
        return self._plugins

    def _add_entry_point(self, entry_point: importlib.metadata.EntryPoint, found: dict[str, T]) -> None:
        where = f"entry point '{entry_point.name} = {entry_point.value}' (group {self.group})"
        package = entry_point.dist.name if entry_point.dist is not None else "its package"
        try:
            loaded = entry_point.load()
        except Exception as exc:  # a plug-in's own bug: named, not a traceback
            message = f"the {self.kind} plugin failed to load ({type(exc).__name__}: {exc})"
            self._refuse(message, where, f"fix or uninstall {package}")
            return
        for plugin in list(loaded) if isinstance(loaded, (list, tuple)) else [loaded]:
            if not isinstance(plugin, self.accepts):
                self._refuse(
                    f"the {self.kind} plugin gives a {type(plugin).__name__}, "
                    f"not an assay {self.accepts.__name__}",
                    where,
                    f"point the entry point at an {self.accepts.__name__} (or a list of them)",
                )
                continue
            name = self._name(plugin, entry_point)
            if name in self._built_in_targets or name in found:
                self._refuse(
                    f"the {self.kind} plugin's {self.named} '{name}' has the name of "
                    f"{self._owner(name, found)}; it is refused",
                    where,
                    f"give the plugin's {self.kind} another name (in {package})",
                )
                continue
            found[name] = plugin

    def _name(self, plugin: T, entry_point: importlib.metadata.EntryPoint | None) -> str:
        if self.name_of is not None:
            return self.name_of(plugin)
        if entry_point is None:
            raise UsageError(f"a {self.kind} registered in process needs a name", fix="pass name=...")
        return entry_point.name

    def _owner(self, name: str, plugins: Mapping[str, T] | None = None) -> str:
        if name in self._built_in_targets:
            return f"a built-in {self.named}"
        return f"another plugin's {self.named}" if plugins is not None else f"another {self.named}"

    def _refuse(self, message: str, where: str, fix: str) -> None:
        self.errors.append(UsageError(message, where=where, fix=fix))
