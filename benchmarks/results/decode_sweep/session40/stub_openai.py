# SPDX-License-Identifier: Apache-2.0
"""Session 40, call 116: installed as /tmp/site/sitecustomize.py on the GPU
machine, so that `openai` and `openai_harmony`, left out of
.gpu/site-ops.tar.xz, import as empty stubs (vllm.config imports them through
vllm.reasoning; no op or kernel the call times uses them)."""

import importlib.abc
import importlib.machinery
import sys
import types


class _Stub(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("openai", "openai_harmony"):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = _attr
        return module

    def exec_module(self, module):
        pass


def _attr(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return type(name, (), {})


sys.meta_path.append(_Stub())
