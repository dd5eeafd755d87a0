"""Shared test configuration: where the public fixtures live."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
FIXTURES = SHARED / "fixtures"


@pytest.fixture
def fixtures_dir() -> Path:
    """``../shared/fixtures`` beside the repository; skip when it is not there."""
    if not FIXTURES.is_dir():
        pytest.skip(f"public fixtures not found at {FIXTURES} (../shared is absent)")
    return FIXTURES
