"""Peak tensor memory and FLOPs of a step predicted without running it: the step on ``meta``
tensors (``step``), with what the CPU's kernels do that a meta run cannot know
(``cpu_kernels``) and what they hold inside a call, modelled as a function of the length
(``kernel_model``)."""
