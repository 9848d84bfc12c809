"""YAML loaded safely: the safe loader only, with a bound on alias expansion and nesting.

An alias bomb (``&a [*a, *a]`` nested ten deep) is a few lines that expand to billions of
nodes, and anchors can make a structure contain itself. We compose the node graph first,
count nodes as a walk would visit them (aliases expanded) up to a limit, and only then build
Python objects. Nodes keep their marks, so keys can be located for findings.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

MAX_NODES = 200_000  # generous for real files, far below what an alias bomb expands to


@dataclass
class YamlError(Exception):
    message: str
    line: int  # 0-based, as YAML marks are
    column: int


@dataclass(frozen=True)
class Document:
    data: object
    node: yaml.Node | None

    def locate(self, *path: str) -> yaml.Node | None:
        """The key node at ``path`` (e.g. ``"model", "parameters", "max_tokens"``), or None."""
        node, key_node = self.node, None
        for key in path:
            if not isinstance(node, yaml.MappingNode):
                return None
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == key:
                    key_node, node = k, v
                    break
            else:
                return None
        return key_node


def load(text: str) -> Document:
    """Compose, check the size of, and construct one YAML document; raise YamlError."""
    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_size(node)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        raise YamlError(_describe(error), mark.line if mark else 0, mark.column if mark else 0) from None
    except yaml.YAMLError as error:
        raise YamlError(str(error), 0, 0) from None
    except RecursionError:
        raise YamlError("the YAML nests too deeply to load", 0, 0) from None
    finally:
        loader.dispose()
    return Document(data, node)


def _check_size(root: yaml.Node) -> None:
    seen = 0
    stack = [root]
    while stack:
        node = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            mark = root.start_mark
            raise YamlError(
                f"the YAML expands through aliases to more than {MAX_NODES:,} nodes (or contains itself); not loaded",
                mark.line,
                mark.column,
            )
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)


def _describe(error: yaml.MarkedYAMLError) -> str:
    parts = [p for p in (error.context, error.problem) if p]
    return "invalid YAML: " + ", ".join(parts) if parts else "invalid YAML"
