"""Feature learning as virtual covariance learning (Cha & Lee; Cha, Beaglehole, Radhakrishnan, Lee 2026, arXiv
2605.06258).

``laws.py`` (sympy only): the Gram-shift identity with its exact residual, its order in γ per reading of
the virtual covariance, and Theorem 3 in its literal and its corrected form; ``model.py`` (torch only): deep
networks, closed-form back-propagation, Gram residuals, Theorem 3 elements and the VCL (Procrustes) update.
"""
