"""Overhead cameras: frame sources, card recognition, the per-seat identifiable verdict."""
