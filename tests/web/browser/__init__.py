"""Tests in a real browser (headless Chromium, Playwright): journeys across the site."""
