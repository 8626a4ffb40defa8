"""Fakes of the Kubernetes and GCE clients (what the resolvers' `override_client` and
`service` arguments accept), shared by generate.py (fed to TensorFlow's resolvers) and
tests/api/test_distribute_more_resolvers.py (fed to tfx's), which load this file by path."""

from __future__ import annotations

from types import SimpleNamespace


class FakeKubernetes:
    def __init__(self, pods: dict) -> None:
        self.pods = pods  # selector -> [(name, phase, host_ip)]

    def list_pod_for_all_namespaces(self, label_selector: str):
        items = [SimpleNamespace(metadata=SimpleNamespace(name=n),
                                 status=SimpleNamespace(phase=p, host_ip=ip))
                 for n, p, ip in self.pods.get(label_selector, [])]
        return SimpleNamespace(items=items)


class _Request:
    def __init__(self, result) -> None:
        self.result = result

    def execute(self):
        return self.result


class FakeGCE:
    """The Compute Engine client's calls the resolver makes, over pages of instances."""

    def __init__(self, pages: list[list[str]], addresses: dict) -> None:
        self.pages = pages
        self.addresses = addresses
        self.calls = []

    def instanceGroups(self):  # noqa: N802 - the client's name
        return self

    def instances(self):
        return self

    def listInstances(self, **kwargs):  # noqa: N802
        self.calls.append(sorted(kwargs.items()))
        return _Request({"items": [{"instance": f"projects/p/zones/z/instances/{n}"}
                                   for n in self.pages[0]], "page": 0})

    def listInstances_next(self, previous_request, previous_response):  # noqa: N802
        page = previous_response["page"] + 1
        if page >= len(self.pages):
            return None
        return _Request({"items": [{"instance": f"projects/p/zones/z/instances/{n}"}
                                   for n in self.pages[page]], "page": page})

    def get(self, project, zone, instance):
        return _Request({"networkInterfaces": [{"networkIP": self.addresses[instance]}]})
