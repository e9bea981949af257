"""ta_melspec: torchaudio.transforms.MelSpectrogram (16 kHz, n_fft 64, hop 16, 16 mels) followed by log; returns log-mel frames."""
import torch
import torchaudio


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.m = torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_fft=64, hop_length=16, n_mels=16)

    def forward(self, waveform):
        return torch.log(self.m(waveform) + 1e-6)


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 400, generator=g),)
