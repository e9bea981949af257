"""whisper_encoder: transformers WhisperModel's encoder, tiny random config (d_model 32, 2 layers, 4 heads, 16 mel bins, 32 frames); returns last_hidden_state."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.WhisperConfig(vocab_size=100, num_mel_bins=16, d_model=32, encoder_layers=2,
                                         encoder_attention_heads=4, decoder_layers=1, decoder_attention_heads=4,
                                         encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16,
                                         max_target_positions=16, pad_token_id=1, bos_token_id=0,
                                         eos_token_id=2, decoder_start_token_id=0)
        self.m = transformers.WhisperModel(cfg).get_encoder()

    def forward(self, input_features):
        return self.m(input_features=input_features).last_hidden_state


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 16, 32, generator=g),)
