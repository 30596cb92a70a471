"""Predict and encode with a trained checkpoint: sentence files in, CSV files out."""
