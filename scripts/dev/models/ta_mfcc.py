"""ta_mfcc: torchaudio.transforms.MFCC (16 kHz, 13 coefficients from 16 mels, n_fft 64, hop 16, log-mel, orthonormal DCT)."""
import torch
import torchaudio


def make_model():
    torch.manual_seed(0)
    return torchaudio.transforms.MFCC(sample_rate=16000, n_mfcc=13, log_mels=True,
                                      melkwargs={"n_fft": 64, "hop_length": 16, "n_mels": 16}).eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 400, generator=g),)
