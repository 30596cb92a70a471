"""The papers' dropout settings, each in the paper's words: a built-in encoder's registration
names the one its builder's default dropout (1 - the keep probability) comes from
(``register_encoder(..., dropout_from=...)``), at each paper's SNLI setting (MPSAN, a text
classifier, has one setting)."""

DISAN_SNLI = 'DiSAN Sec. 5: "Dropout with keep probability 0.75 for language inference"'
BI_BLOSAN_SNLI = (
    'Bi-BloSAN Sec. 4.1: "The Dropout keep probability and the L2 regularization weight decay '
    'factor gamma are set to 0.75 and 5x10^-5", for Bi-BloSAN and every baseline it trains'
)
MTSA_SNLI = (
    'MTSA Appendix B: "For SNLI dataset ..., we set p_kp = 0.65 ... And, we do not use the '
    'attention dropout for this benchmark."'
)
MPSAN_CLASSIFICATION = (
    'MPSAN Experimental Settings: "We add dropouts between the layers of our model, and the '
    "dropout-ratio is 0.7\", read as a keep probability like DiSAN's (docs/encoders.md)"
)
