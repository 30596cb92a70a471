"""Building blocks shared by several encoders (masks, masked softmax, source2token)."""
