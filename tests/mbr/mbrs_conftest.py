"""A pytest plugin that runs mbrs's own tests against exactbleu.mbrs: it puts exactbleu's MetricBLEU
where mbrs's tests and registry find mbrs's (``mbrs.metrics.bleu.MetricBLEU``, ``mbrs.metrics.MetricBLEU``
and the registry's "bleu"), restores mbrs's afterwards, and keeps each test's outcome. in_mbrs.py
passes it to ``pytest.main``, in mbrs's environment; the dev environment only reads it (for
doctests), so mbrs is imported inside the hooks."""

OUTCOMES: dict[str, str] = {}  # each test's id: "passed", "failed" or "skipped"
_MBRS_OWN: dict[str, object] = {}


def pytest_configure(config):
    import mbrs.metrics
    import mbrs.metrics.bleu
    from mbrs.registry import get_registry

    from exactbleu.mbrs import MetricBLEU

    registry = get_registry(mbrs.metrics.Metric | mbrs.metrics.MetricReferenceless)
    _MBRS_OWN.update(module=mbrs.metrics.bleu.MetricBLEU, package=mbrs.metrics.MetricBLEU, registry=registry["bleu"])
    mbrs.metrics.bleu.MetricBLEU = mbrs.metrics.MetricBLEU = MetricBLEU
    registry["bleu"] = MetricBLEU


def pytest_runtest_logreport(report):
    # A test passes when its call passes, and fails or is skipped in whichever phase that happens.
    if report.failed:
        OUTCOMES[report.nodeid] = "failed"
    elif report.skipped or report.when == "call":
        OUTCOMES.setdefault(report.nodeid, report.outcome)


def pytest_unconfigure(config):
    import mbrs.metrics
    import mbrs.metrics.bleu
    from mbrs.registry import get_registry

    if _MBRS_OWN:
        mbrs.metrics.bleu.MetricBLEU = _MBRS_OWN["module"]
        mbrs.metrics.MetricBLEU = _MBRS_OWN["package"]
        get_registry(mbrs.metrics.Metric | mbrs.metrics.MetricReferenceless)["bleu"] = _MBRS_OWN["registry"]
